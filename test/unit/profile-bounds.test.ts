// Parse-time bounds on a ptop stream (src/protocol/profile-limits.ts): in step with ptop's own
// limits, read from its sources, so that every stream ptop writes is accepted; and each bound
// refuses a stream past it, saying which, before that stream costs a diff. The diff's worker and
// budget: a job over its budget is answered as such.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { MAX_NAME_CHARS, MAX_RECORD_CHARS, MAX_STACK_DEPTH, MAX_STREAM_STACKS } from "../../src/protocol/profile-limits.ts";
import { runDiffJobInWorker } from "../../src/server/off-loop/run-in-worker.ts";
import { parseStream, StreamBoundError } from "../../src/witness/stream.ts";

const SRC = resolve(import.meta.dir, "../../native/ptop/src");
const define = (file: string, name: string): string => {
  const m = new RegExp(`#define ${name} (.+?)(\\s*/\\*.*)?$`, "m").exec(readFileSync(resolve(SRC, file), "utf8"));
  if (!m) throw new Error(`${name} not found in ${file}`);
  return m[1]!.trim();
};

test("the bounds are ptop's own: its deepest stack and its most stack records", () => {
  const user = Number(define("unwinder/unwind.h", "PTOP_MAX_UNWIND_DEPTH"));
  const kernel = Number(define("bpf/ptop.h", "PTOP_MAX_STACK_DEPTH"));
  const python = Number(define("interp/python/python.h", "PY_MAX_FRAMES"));
  // report.c builds each stack in this array: its size is the deepest stack ptop can write.
  expect(readFileSync(resolve(SRC, "out/report.c"), "utf8")).toContain("int ids[PTOP_MAX_UNWIND_DEPTH + PTOP_MAX_STACK_DEPTH + PY_MAX_FRAMES + 2];");
  expect(MAX_STACK_DEPTH).toBe(user + kernel + python + 2);
  expect(define("unwinder/unwind_child.c", "PTOP_UNWIND_MAX_ENTRIES")).toBe("(1u << 18)");
  const sysCounts = /__uint\(max_entries, (\d+)\);\s*__type\(key, struct sys_key\);/.exec(readFileSync(resolve(SRC, "bpf/ptop.bpf.c"), "utf8"));
  expect(MAX_STREAM_STACKS).toBe((1 << 18) + Number(sysCounts![1]));
});

const HEADER = [
  { type: "header", version: 1, workload: "w", probes_requested: ["cpu"], frequency_hz: 99, warmup_sec: 0, duration_sec: 1, started_at_ms: 0 },
  { type: "probe", name: "cpu", attached: true },
  { type: "axis", name: "cpu", unit: "samples" },
  { type: "frame", id: 0, function: "main", kind: "native" },
].map((r) => JSON.stringify(r));
const stream = (...lines: string[]) => [...HEADER, ...lines].join("\n") + "\n";
const stack = (depth: number) => JSON.stringify({ type: "stack", axis: "cpu", frames: new Array(depth).fill(0), value: 1 });
const refusal = (text: string) => {
  try {
    parseStream(text);
  } catch (err) {
    if (err instanceof StreamBoundError) return err.message;
    throw err;
  }
  return null;
};

describe("the diff's worker", () => {
  const good = gzipSync(stream(stack(3)));
  const job = { pushed: { requestId: "a", name: "1/head/a.jsonl", gz: good }, before: [], after: [] };

  test("reads a pushed stream off the event loop, and refuses one that is not a ptop stream", async () => {
    expect(await runDiffJobInWorker(job)).toEqual({ kind: "checked" });
    const folded = { ...job, pushed: { ...job.pushed, gz: gzipSync("main;f 10\n") } };
    expect(await runDiffJobInWorker(folded)).toEqual({ kind: "refused", reason: "the pushed profile is not a ptop stream (JSON Lines starting with a header record)" });
  });

  test("a job over its time or memory budget is stopped and answered over_budget", async () => {
    expect(await runDiffJobInWorker(job, { timeMs: 1, memoryBytes: 2 ** 30 })).toEqual({ kind: "over_budget", why: "it took more than 0.001 s", pushedRead: false });
    // 250,000 distinct stacks take a few hundred MiB to read: past a 16 MiB budget, the worker is
    // stopped. In a process of its own: growth is measured on the process, and one that has run other
    // tests has freed pages a worker can reuse without growing.
    const frames = Array.from({ length: 500 }, (_, i) => JSON.stringify({ type: "frame", id: i + 1, function: `f${i}`, kind: "native" }));
    const stacks = Array.from({ length: 250_000 }, (_, i) => `{"type":"stack","axis":"cpu","frames":[0,${[1, 7, 31, 127, 499].map((m) => 1 + (Math.floor(i / m) % 500))}],"value":1}`);
    const file = join(mkdtempSync(join(tmpdir(), "runner-budget-")), "many.jsonl.gz");
    writeFileSync(file, gzipSync(stream(...frames, ...stacks)));
    const script = `import { runDiffJobInWorker } from ${JSON.stringify(resolve(import.meta.dir, "../../src/server/off-loop/run-in-worker.ts"))};
      const gz = new Uint8Array(await Bun.file(${JSON.stringify(file)}).arrayBuffer());
      console.log(JSON.stringify(await runDiffJobInWorker({ pushed: { requestId: "a", name: "a.jsonl", gz }, before: [], after: [] }, { timeMs: 60_000, memoryBytes: 16 * 2 ** 20 })));`;
    const child = Bun.spawnSync([process.execPath, "-e", script], { stderr: "pipe" });
    rmSync(dirname(file), { recursive: true, force: true });
    expect(child.stderr.toString()).toBe("");
    const overMemory = JSON.parse(child.stdout.toString());
    expect(overMemory).toEqual({ kind: "over_budget", why: "it needed more than 16 MiB of memory", pushedRead: false });
  });
});

describe("a stream past a bound is refused, naming it", () => {
  test("stack depth: ptop's deepest passes, one more is refused", () => {
    expect(refusal(stream(stack(MAX_STACK_DEPTH)))).toBeNull();
    expect(refusal(stream(stack(MAX_STACK_DEPTH + 1)))).toBe(`line 5: a stack of ${MAX_STACK_DEPTH + 1} frames (ptop's deepest is ${MAX_STACK_DEPTH}), more than ptop writes: refused`);
  });

  test("names and records", () => {
    const named = (n: number) => JSON.stringify({ type: "frame", id: 1, function: "f".repeat(n), kind: "native" });
    expect(refusal(stream(named(MAX_NAME_CHARS)))).toBeNull();
    expect(refusal(stream(named(MAX_NAME_CHARS + 1)))).toContain(`line 5: a function or module name of more than ${MAX_NAME_CHARS} characters`);
    const long = JSON.stringify({ type: "process", pid: 1, comm: "x".repeat(MAX_RECORD_CHARS) });
    expect(refusal(stream(long))).toContain("line 5: a record of");
  });

  test(`stack records: ${MAX_STREAM_STACKS} pass, one more is refused`, () => {
    const lines = Array.from({ length: MAX_STREAM_STACKS + 1 }, () => '{"type":"stack","axis":"cpu","frames":[0],"value":1}');
    expect(refusal(stream(...lines.slice(1)))).toBeNull();
    expect(refusal(stream(...lines))).toBe(`line ${HEADER.length + MAX_STREAM_STACKS + 1}: more than ${MAX_STREAM_STACKS} stack records, more than ptop writes: refused`);
  });
});
