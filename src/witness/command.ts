// `runner witness …`: fold, convert and diff profile files. File I/O lives here only; everything
// below it (parse, codecs, diff, html) is pure and is what the control plane calls directly.

import { parseArgs } from "node:util";
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import type { Capture } from "./model.ts";
import { parseProfile } from "./parse.ts";
import { toFolded } from "./folded.ts";
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
`;

class UsageError extends Error {}

async function readInput(path: string): Promise<Uint8Array> {
  if (path === "-") return new Uint8Array(await Bun.stdin.arrayBuffer());
  try {
    return readFileSync(path);
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}

async function load(path: string): Promise<Capture> {
  const bytes = await readInput(path);
  try {
    return parseProfile(bytes, path === "-" ? "" : basename(path));
  } catch (e) {
    throw new Error(`${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

async function fold(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options: { axis: { type: "string", default: "cpu" } }, allowPositionals: true });
  if (positionals.length > 1) throw new UsageError("fold takes one input file");
  const c = await load(positionals[0] ?? "-");
  const axis = values.axis!;
  const p = c.axes[axis];
  if (!p) {
    const miss = c.missing.find((m) => m.axis === axis);
    const have = Object.keys(c.axes).join(", ") || "none";
    process.stderr.write(`witness: axis "${axis}" is absent from this capture${miss ? `: ${miss.reason}` : ""} (axes present: ${have})\n`);
    return 1;
  }
  process.stdout.write(toFolded(p));
  return 0;
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
  for (const a of axes) if (!c.axes[a]) throw new Error(`axis "${a}" is absent from ${positionals[0]}`);
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
  const norm = values.normalise ?? values.normalize ?? "median-ratio";
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
  const result = diffCaptures({ before, after }, { normalisation: norm as Normalisation, ...(q !== undefined ? { q } : {}), ...(minEffect !== undefined ? { minEffect } : {}) });
  if (values.html) writeFileSync(values.html, renderDiffHtml(result, { before, after }));
  process.stdout.write(values.json ? JSON.stringify(result, null, 2) + "\n" : renderDiffTable(result));
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
    const usage = e instanceof UsageError || (e as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
    process.stderr.write(`witness: ${e instanceof Error ? e.message : String(e)}\n${usage ? USAGE : ""}`);
    return usage ? 2 : 1;
  }
}
