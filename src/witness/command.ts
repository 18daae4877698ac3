// `runner witness …`: fold, convert and diff profile files. File I/O lives here only; everything
// below it (parse, codecs, diff, html) is pure and is what the control plane calls directly.

import { CliUsageError, parseCommandLine as parseArgs, USAGE_EXIT } from "../cli-args.ts";
import { writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { basename } from "node:path";
import { axisOf, type Capture } from "./model.ts";
import { terminalJson, terminalSafe } from "../terminal-text.ts";
import { MAX_PROFILE_BYTES, ProfileTooLargeError } from "../protocol/profile-limits.ts";
import { detectFormat, parseProfile } from "./parse.ts";
import { axisFromName, FoldedCounts, foldedLines, toFolded } from "./folded.ts";
import { forEachLine } from "./read-lines.ts";
import { toPprof } from "./pprof.ts";
import { toSpeedscope } from "./speedscope.ts";
import { diffCaptures, type Normalisation } from "./diff.ts";
import { renderDiffTable } from "./table.ts";
import { renderDiffHtml } from "./html.ts";

const USAGE = `usage:
  runner witness fold [--axis AXIS] [FILE|-]
  runner witness diff --before F[,F…] --after F[,F…] [--json] [--html OUT.html]
                      [--normalise median-ratio|share|rate] [--q 0.05] [--min-effect 0.05]
  runner witness convert IN --to pprof|folded|speedscope -o OUT [--axis AXIS]

Inputs are pprof (.pb.gz), folded stacks (.folded) or ptop streams, detected by content.
In diff, the first file of each side is the head capture; the rest are replicates of that version.
Normalisation: median-ratio unless --normalise is given; the alloc and locks axes then compare per second
(rate: bytes allocated, lock-wait time), and alloc reports bytes per unit of cpu (cpu) in --json when every
capture has a cpu axis.
`;

class UsageError extends Error {}

/**
 * A file's bytes a megabyte at a time. Each chunk is a new buffer, unless `reuse` is set: then
 * one buffer is read into again and again, for a consumer that copies what it keeps (folded
 * input), so reading a large file leaves no trail of chunks for the collector.
 */
class FileChunks implements AsyncIterable<Uint8Array> {
  reuse = false;
  constructor(private readonly path: string) {}

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    const fh = await open(this.path, "r");
    try {
      let reused: Uint8Array | undefined; // never one that was handed out before `reuse` was set
      for (;;) {
        const buf = this.reuse ? (reused ??= new Uint8Array(1 << 20)) : new Uint8Array(1 << 20);
        const { bytesRead } = await fh.read(buf, 0, buf.length, null);
        if (bytesRead === 0) return;
        yield buf.subarray(0, bytesRead);
      }
    } finally {
      await fh.close();
    }
  }
}

/** The input as chunks: a file, or stdin for "-". */
function openInput(path: string): AsyncIterable<Uint8Array> & { reuse?: boolean } {
  return path === "-" ? Bun.stdin.stream() : new FileChunks(path);
}

/** Reads chunks whole, refusing input past MAX_PROFILE_BYTES (gzip never shrinks a profile that size). */
async function readBounded(chunks: AsyncIterable<Uint8Array>, first: Uint8Array[], path: string): Promise<Uint8Array> {
  const parts = [...first];
  let size = parts.reduce((n, p) => n + p.length, 0);
  for await (const chunk of chunks) {
    size += chunk.length;
    if (size > MAX_PROFILE_BYTES) throw new ProfileTooLargeError(`${path} holds`);
    parts.push(chunk);
  }
  if (size > MAX_PROFILE_BYTES) throw new ProfileTooLargeError(`${path} holds`);
  return Buffer.concat(parts);
}

/** An input opened far enough to tell its format: the chunks read so far, and the rest. */
interface OpenedInput {
  format: ReturnType<typeof detectFormat>;
  /** The file name for format and axis hints ("" for stdin). */
  hint: string;
  head: Uint8Array[];
  rest: AsyncIterable<Uint8Array>;
  /** From here on the rest may come in one reused buffer (the consumer keeps no chunk). */
  reuseBuffers: () => void;
}

async function openProfile(path: string): Promise<OpenedInput> {
  const hint = path === "-" ? "" : basename(path);
  const head: Uint8Array[] = [];
  let headSize = 0;
  let chunks: AsyncIterator<Uint8Array>;
  const source = openInput(path);
  try {
    chunks = source[Symbol.asyncIterator]();
    // Enough of the start to tell the format (detectFormat looks at the first 64 bytes after whitespace).
    while (headSize < 4096) {
      const next = await chunks.next();
      if (next.done) break;
      head.push(next.value);
      headSize += next.value.length;
    }
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  return {
    format: detectFormat(Buffer.concat(head), hint),
    hint,
    head,
    rest: { [Symbol.asyncIterator]: () => chunks },
    reuseBuffers: () => {
      if (source instanceof FileChunks) source.reuse = true;
    },
  };
}

/** The input's chunks from the start, stopping at `limit` bytes with ProfileTooLargeError. */
async function* allChunks(input: OpenedInput, path: string, limit = Infinity): AsyncGenerator<Uint8Array> {
  let size = 0;
  for (const src of [input.head, input.rest]) {
    for await (const chunk of src) {
      size += chunk.length;
      if (size > limit) throw new ProfileTooLargeError(`${path} holds`);
      yield chunk;
    }
  }
}

/**
 * Folded input merged a line at a time as it is read: memory follows the distinct stacks, never
 * the file's text or its lines (a 44 MB folded file took 1.9 GB when it was read whole).
 */
async function foldedCounts(input: OpenedInput, path: string, axis: string, limit?: number): Promise<FoldedCounts> {
  const counts = new FoldedCounts(axis);
  input.reuseBuffers(); // LineSplitter copies a line that spans chunks; FoldedCounts copies names
  try {
    await forEachLine(allChunks(input, path, limit), (buf, start, end) => counts.lineBytes(buf, start, end));
  } catch (e) {
    if (e instanceof ProfileTooLargeError) throw e;
    throw new Error(`${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return counts;
}

async function load(path: string): Promise<Capture> {
  const input = await openProfile(path);
  if (input.format === "folded") return (await foldedCounts(input, path, axisFromName(input.hint), MAX_PROFILE_BYTES)).capture(input.hint || undefined);
  let bytes: Uint8Array;
  try {
    bytes = await readBounded(input.rest, input.head, path);
  } catch (e) {
    if (e instanceof ProfileTooLargeError) throw e;
    throw new Error(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  try {
    return parseProfile(bytes, input.hint);
  } catch (e) {
    throw new Error(`${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Writes lines to stdout a megabyte at a time, waiting for a slow reader instead of buffering all. */
async function writeLines(lines: Iterable<string>): Promise<void> {
  const CHUNK = 1 << 20;
  let batch: string[] = [];
  let size = 0;
  const flush = async () => {
    if (!batch.length) return;
    const text = batch.join("\n") + "\n";
    batch = [];
    size = 0;
    if (!process.stdout.write(text)) await new Promise<void>((resolve) => process.stdout.once("drain", () => resolve()));
  };
  for (const line of lines) {
    batch.push(line);
    size += line.length + 1;
    if (size >= CHUNK) await flush();
  }
  await flush();
}

/** Writes byte chunks to stdout, waiting for a slow reader instead of buffering them all. */
async function writeChunks(chunks: Iterable<Uint8Array>): Promise<void> {
  for (const chunk of chunks) if (!process.stdout.write(chunk)) await new Promise<void>((resolve) => process.stdout.once("drain", () => resolve()));
}

/**
 * Folded input is streamed (foldedCounts), with no size limit: memory follows the distinct
 * stacks. Other formats are read whole, up to MAX_PROFILE_BYTES.
 */
async function fold(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: { axis: { type: "string", default: "cpu" } }, allowPositionals: true });
  if (positionals.length > 1) throw new UsageError("fold takes one input file");
  const path = positionals[0] ?? "-";
  const axis = values.axis!;
  const input = await openProfile(path);
  if (input.format === "folded") {
    const have = axisFromName(input.hint);
    if (have !== axis) return absentAxis(axis, [], have);
    await writeChunks((await foldedCounts(input, path, axis)).sortedOutput());
    return 0;
  }
  const bytes = await readBounded(input.rest, input.head, path);
  let c: Capture;
  try {
    c = parseProfile(bytes, input.hint);
  } catch (e) {
    throw new Error(`${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const p = axisOf(c, axis);
  if (!p) return absentAxis(axis, c.missing, Object.keys(c.axes).join(", "));
  await writeLines(foldedLines(p));
  return 0;
}

function absentAxis(axis: string, missing: Capture["missing"], have: string): number {
  const miss = missing.find((m) => m.axis === axis);
  process.stderr.write(`witness: axis "${axis}" is absent from this capture${miss ? `: ${miss.reason}` : ""} (axes present: ${have || "none"})\n`);
  return 1;
}

async function convert(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { to: { type: "string" }, o: { type: "string", short: "o" }, output: { type: "string" }, axis: { type: "string" } },
    allowPositionals: true,
  });
  const out = values.o ?? values.output;
  if (positionals.length !== 1 || !values.to || !out) throw new UsageError("convert needs IN, --to and -o OUT");
  const c = await load(positionals[0]!);
  const axes = values.axis ? values.axis.split(",") : Object.keys(c.axes);
  for (const a of axes) if (!axisOf(c, a)) throw new Error(`axis "${a}" is absent from ${positionals[0]} (axes present: ${Object.keys(c.axes).join(", ") || "none"})`);
  if (axes.length === 0) throw new Error(`${positionals[0]}: no axis to convert`);
  let data: Uint8Array | string;
  if (values.to === "pprof") data = toPprof(c, axes);
  else if (values.to === "speedscope") data = toSpeedscope(c, axes);
  else if (values.to === "folded") {
    if (axes.length !== 1) throw new UsageError(`folded holds one axis; pick one with --axis (${axes.join(", ")})`);
    data = toFolded(c.axes[axes[0]!]!);
  } else throw new UsageError(`unknown format "${values.to}" (pprof, folded, speedscope)`);
  if (out === "-") process.stdout.write(data);
  else writeFileSync(out, data);
  return 0;
}

async function diff(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      before: { type: "string" },
      after: { type: "string" },
      json: { type: "boolean", default: false },
      html: { type: "string" },
      normalise: { type: "string" },
      normalize: { type: "string" },
      q: { type: "string" },
      "min-effect": { type: "string" },
    },
    allowPositionals: true,
  });
  if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  if (!values.before || !values.after) throw new UsageError("diff needs --before and --after");
  // Not given: the diff's default (median-ratio; the alloc and locks axes compare per second,
  // settings.ts axisNormalisation).
  const asked = values.normalise ?? values.normalize;
  const norm = asked ?? "median-ratio";
  if (!["median-ratio", "share", "rate"].includes(norm)) throw new UsageError(`unknown normalisation "${norm}"`);
  const num = (s: string | undefined, name: string, lo: number, hi: number) => {
    if (s === undefined) return undefined;
    const v = Number(s);
    if (!Number.isFinite(v) || v <= lo || v >= hi) throw new UsageError(`--${name} must be a number in (${lo}, ${hi})`);
    return v;
  };
  const q = num(values.q, "q", 0, 1);
  const minEffect = num(values["min-effect"], "min-effect", 0, 10);
  const split = (s: string) => s.split(",").filter((x) => x !== "");
  const before = await Promise.all(split(values.before).map(load));
  const after = await Promise.all(split(values.after).map(load));
  if (!before.length || !after.length) throw new UsageError("--before and --after each need at least one file");
  const result = diffCaptures({ before, after }, { ...(asked !== undefined ? { normalisation: norm as Normalisation } : {}), ...(q !== undefined ? { q } : {}), ...(minEffect !== undefined ? { minEffect } : {}) });
  if (values.html) writeFileSync(values.html, renderDiffHtml(result, { before, after }));
  // Function names come from the profiled binaries: printed terminal-safe, line by line.
  process.stdout.write(values.json ? terminalJson(result) + "\n" : renderDiffTable(result).split("\n").map(terminalSafe).join("\n"));
  return 0;
}

export async function witnessCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  try {
    if (sub === "fold") return await fold(rest);
    if (sub === "convert") return await convert(rest);
    if (sub === "diff") return await diff(rest);
    if (!sub || sub === "--help" || sub === "-h" || sub === "help") {
      process.stdout.write(USAGE);
      return sub ? 0 : 2;
    }
    throw new UsageError(`unknown subcommand "${sub}"`);
  } catch (e) {
    const usage = e instanceof UsageError || e instanceof CliUsageError;
    process.stderr.write(`witness: ${e instanceof Error ? e.message : String(e)}\n${usage ? USAGE : ""}`);
    return usage ? USAGE_EXIT : 1;
  }
}
