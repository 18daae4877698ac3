// Shared set-up for ptop's live tests: build ptop, give a private copy the five file capabilities,
// run workloads and ptop as a non-root user (uid 65534), and read the stream back.
import { Value } from "@sinclair/typebox/value";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { REPO_ROOT } from "../helpers/runner-bin.ts";
import { StreamRecord, type FrameRecord, type StackRecord } from "../../src/protocol/profile-stream.ts";

export const NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];
export const FIVE_CAPS = "cap_bpf,cap_perfmon,cap_sys_ptrace,cap_dac_read_search,cap_sys_admin+ep";
const WORKLOADS = resolve(REPO_ROOT, "test/fixtures/workloads");

/** Builds native/ptop (make is incremental) unless PTOP_BIN points at a built binary. */
export function ptopSource(): string {
  if (process.env.PTOP_BIN) return process.env.PTOP_BIN;
  const make = Bun.spawnSync(["make", "-s", "-C", resolve(REPO_ROOT, "native/ptop")], { stderr: "pipe", stdout: "pipe" });
  if (make.exitCode !== 0) throw new Error(`make -C native/ptop failed: ${make.stderr.toString()}`);
  return resolve(REPO_ROOT, "native/ptop/build/ptop");
}

/** A world-readable temp dir (the non-root workloads and ptop must read it). */
export function sharedTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  return dir;
}

/** Copies ptop into dir and grants it exactly the five file capabilities. */
export function setcapPtop(dir: string, caps = FIVE_CAPS): string {
  return copyWithCaps(ptopSource(), dir, caps);
}

/** Another ptop binary (an earlier build a benchmark compares against), copied into dir (made
 *  world-readable) with the five file capabilities. */
export function setcapPtopFrom(source: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  return copyWithCaps(source, dir, FIVE_CAPS);
}

/** A test build of ptop (a Makefile target such as `smallagg`, with one bound made tiny; never
 *  shipped), copied into dir with the five file capabilities. */
export function setcapTestBuild(dir: string, target: string): string {
  const make = Bun.spawnSync(["make", "-s", "-C", resolve(REPO_ROOT, "native/ptop"), target], { stderr: "pipe", stdout: "pipe" });
  if (make.exitCode !== 0) throw new Error(`make ${target} failed: ${make.stderr.toString()}`);
  return copyWithCaps(resolve(REPO_ROOT, `native/ptop/build/ptop-${target}`), dir, FIVE_CAPS);
}

function copyWithCaps(source: string, dir: string, caps: string): string {
  const bin = join(dir, "ptop");
  copyFileSync(source, bin);
  chmodSync(bin, 0o755);
  const r = Bun.spawnSync(["setcap", caps, bin], { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`setcap failed: ${r.stderr.toString()}`);
  return bin;
}

/** Runs fn while each command runs as uid 65534 (given 300 ms to start), then stops them all. */
export async function whileRunning<T>(cmds: string[][], fn: () => Promise<T>): Promise<T> {
  const work = cmds.map((cmd) => spawnAsNobody(cmd));
  try {
    await sleep(300);
    return await fn();
  } finally {
    for (const w of work) w.kill("SIGTERM");
    await Promise.all(work.map((w) => w.exited));
  }
}

export function writeTargets(dir: string, body: unknown, name = "targets.json"): string {
  const path = join(dir, name);
  writeFileSync(path, typeof body === "string" ? body : JSON.stringify(body));
  chmodSync(path, 0o644);
  return path;
}

/** Compiles the hotloop workload with frame pointers (clang keeps them in leaf functions too),
 *  or with other code-generation flags (e.g. -fomit-frame-pointer). */
export function buildHotloop(dir: string, name = "hotloop",
  flags = ["-fno-omit-frame-pointer", "-mno-omit-leaf-frame-pointer"]): string {
  const out = join(dir, name);
  const r = Bun.spawnSync(
    ["clang", "-O1", ...flags, "-fno-inline", "-pthread", join(WORKLOADS, "hotloop.c"), "-o", out],
    { stderr: "pipe" },
  );
  if (r.exitCode !== 0) throw new Error(`building hotloop failed: ${r.stderr.toString()}`);
  chmodSync(out, 0o755);
  return out;
}

/**
 * Strips bin and gives it MiniDebugInfo the way Fedora's rpm builds do (find-debuginfo.sh): the
 * function symbols .dynsym lacks, in a symbols-only ELF compressed with xz, added as the section
 * .gnu_debugdata. Afterwards `nm` finds no symbols in bin.
 */
export function addMiniDebugInfo(bin: string) {
  const run = (cmd: string[]) => {
    const r = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${r.stderr.toString()}`);
    return r.stdout.toString();
  };
  const names = (out: string, types: RegExp) =>
    new Set(out.split("\n").map((l) => l.split(" ")).filter((f) => f.length >= 2 && types.test(f[1]!)).map((f) => f[0]!));
  const dynamic = names(run(["nm", "-D", "--format=posix", "--defined-only", bin]), /./);
  const funcs = names(run(["nm", "--format=posix", "--defined-only", bin]), /^[Tt]$/);
  const keep = `${bin}.keep`, debug = `${bin}.debug`, mini = `${bin}.mini`;
  writeFileSync(keep, [...funcs].filter((f) => !dynamic.has(f)).join("\n") + "\n");
  run(["objcopy", "--only-keep-debug", bin, debug]);
  run(["objcopy", "-S", "--remove-section", ".gdb_index", "--remove-section", ".comment", `--keep-symbols=${keep}`, debug, mini]);
  run(["strip", "--strip-all", "-R", ".comment", bin]);
  run(["xz", "-f", mini]);
  run(["objcopy", "--add-section", `.gnu_debugdata=${mini}.xz`, bin]);
  for (const f of [keep, debug, `${mini}.xz`]) rmSync(f, { force: true });
}

export function copyWorkload(dir: string, file: string): string {
  const out = join(dir, file);
  copyFileSync(join(WORKLOADS, file), out);
  chmodSync(out, 0o644);
  return out;
}

export function spawnAsNobody(cmd: string[], opts: { cwd?: string } = {}) {
  return Bun.spawn([...NOBODY, "env", "HOME=/tmp", ...cmd], { stdout: "pipe", stderr: "pipe", cwd: opts.cwd });
}

export interface PtopRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  records: StreamRecord[];
}

/** signalAfterMs: SIGTERM that long after the start; signalAfterHeaderMs: that long after the
 *  header record arrives (ptop writes it when the window opens, after attaching and the warmup,
 *  which on a loaded host can take seconds of their own); onHeader: called then (a peer tool
 *  started there measures the same seconds as ptop's window). */
export async function runPtop(
  bin: string,
  args: string[],
  opts: { asRoot?: boolean; signalAfterMs?: number; signalAfterHeaderMs?: number; onHeader?: () => void } = {},
): Promise<PtopRun> {
  const cmd = opts.asRoot ? [bin, ...args] : [...NOBODY, bin, ...args];
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" });
  if (opts.signalAfterMs !== undefined) setTimeout(() => proc.kill("SIGTERM"), opts.signalAfterMs);
  const atHeader = () => {
    opts.onHeader?.();
    if (opts.signalAfterHeaderMs !== undefined) setTimeout(() => proc.kill("SIGTERM"), opts.signalAfterHeaderMs);
  };
  const [stdout, stderr] = await Promise.all([readStdout(proc.stdout, atHeader), new Response(proc.stderr).text()]);
  const exitCode = await proc.exited;
  return { exitCode, stdout, stderr, records: parseStream(stdout) };
}

/** runPtop with a peer tool (perf record … -- sleep S) started when ptop's window opens (its
 *  header), so that the two measure the same seconds; resolves once both have ended. peerExit is
 *  -1 when ptop never opened its window. */
export async function runPtopBeside(bin: string, args: string[], peer: string[]): Promise<PtopRun & { peerExit: number }> {
  let proc: ReturnType<typeof Bun.spawn> | undefined;
  const run = await runPtop(bin, args, { onHeader: () => (proc = Bun.spawn(peer, { stdout: "ignore", stderr: "ignore" })) });
  return { ...run, peerExit: proc ? await proc.exited : -1 };
}

async function readStdout(stream: ReadableStream<Uint8Array>, atHeader: () => void): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  let seen = false;
  for await (const chunk of stream) {
    text += decoder.decode(chunk, { stream: true });
    if (!seen && text.includes("\n")) {
      seen = true;
      atHeader();
    }
  }
  return text + decoder.decode();
}

/** Parses the JSON Lines stream; every line must be a valid record of the protocol schema. */
export function parseStream(text: string): StreamRecord[] {
  const lines = text.split("\n").filter((l) => l.length > 0);
  return lines.map((line) => {
    const rec = JSON.parse(line);
    if (!Value.Check(StreamRecord, rec)) {
      const first = [...Value.Errors(StreamRecord, rec)][0];
      throw new Error(`invalid stream record ${line}: ${first?.path} ${first?.message}`);
    }
    return rec as StreamRecord;
  });
}

export function framesById(records: StreamRecord[]): Map<number, FrameRecord> {
  const m = new Map<number, FrameRecord>();
  for (const r of records) if (r.type === "frame") m.set(r.id, r);
  return m;
}

export function stacksOf(records: StreamRecord[], axis: string): StackRecord[] {
  return records.filter((r): r is StackRecord => r.type === "stack" && r.axis === axis);
}

/** Share of the axis total per leaf function name. */
export function leafShares(records: StreamRecord[], axis = "cpu"): Map<string, number> {
  const frames = framesById(records);
  const byLeaf = new Map<string, number>();
  let total = 0;
  for (const s of stacksOf(records, axis)) {
    const leafId = s.frames[s.frames.length - 1];
    // Samples taken in the kernel (interrupt, page fault) belong to the user function below them.
    let i = s.frames.length - 1;
    while (i > 0 && frames.get(s.frames[i]!)?.kind === "kernel") i--;
    const name = frames.get(s.frames[i] ?? leafId!)?.function ?? "?";
    byLeaf.set(name, (byLeaf.get(name) ?? 0) + s.value);
    total += s.value;
  }
  for (const [k, v] of byLeaf) byLeaf.set(k, v / total);
  return byLeaf;
}

export function functionNames(records: StreamRecord[], kind?: string): string[] {
  return records.filter((r): r is FrameRecord => r.type === "frame" && (!kind || r.kind === kind)).map((r) => r.function);
}

export function cleanup(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
