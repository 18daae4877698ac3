// The alloc probe with more target processes waiting for an allocation entry point than ptop once
// kept (256): 300 processes are found while they run a stripped first image (no libc, no symbol:
// nothing to probe yet, so ptop keeps retrying them), then exec into an image whose own `malloc`
// it probes, and allocate 16 MiB. Every one of them must have its allocations on the alloc axis.
// Three more processes never get an entry point: the summary must say that 3 target processes were
// not covered, and why. (Before the retry list was sized dynamically, the processes past 256 were
// silently never probed.) The workload has no libc (test/fixtures/workloads/allocmany.c): one
// uprobe per process instead of five, because on kernels without multi-uprobe links ptop detaches
// uprobes one after the other at ~0.1 s each on a loaded host (ptop-alloc-detach.test.ts).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { liveAvailable, NOT_ROOT, REPO_ROOT } from "../helpers/runner-bin.ts";
import type { SummaryRecord } from "../../src/protocol/profile-stream.ts";
import { NOBODY, cleanup, setcapPtop, sharedTempDir, sleep, stacksOf, writeTargets } from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";
import { Lines } from "./line-reader.ts";
import { interruptPtop } from "./ptop-checks.ts";

const live = liveAvailable();
// The run's own name (15 characters at most: a process name), so that parallel runs do not count
// each other's processes.
const NAME = `allocmany${process.pid % 1000000}`;
const MANY = 300;
const NOLIBC = 3;
const MIB = 1 << 20;

function build(cmd: string[]): void {
  const r = Bun.spawnSync(cmd, { stderr: "pipe", stdout: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed: ${r.stderr.toString()}`);
}

describeUnless(whyNot([!live, NOT_ROOT], [!Bun.which("clang"), "needs clang"]))("ptop alloc probe on many processes at once (live)", () => {
  let dir = "", ptop = "", stage1 = "", run = "", launcher = "";
  beforeAll(() => {
    dir = sharedTempDir("ptop-alloc-many-");
    ptop = setcapPtop(dir);
    const src = resolve(REPO_ROOT, "test/fixtures/workloads/allocmany.c");
    for (const d of ["static", "dyn", "launch"]) {
      mkdirSync(join(dir, d));
      chmodSync(join(dir, d), 0o755);
    }
    stage1 = join(dir, "static", NAME);
    run = join(dir, "dyn", NAME);
    launcher = join(dir, "launch", "launcher"); // not the workload's name: not a target
    const freestanding = ["-O2", "-static", "-nostdlib", "-ffreestanding", "-fno-builtin", "-fno-stack-protector"];
    build(["clang", ...freestanding, "-s", src, "-o", stage1]);
    build(["clang", ...freestanding, src, "-o", run]);
    build(["clang", "-O2", resolve(REPO_ROOT, "test/fixtures/workloads/allocmany_launcher.c"), "-o", launcher]);
    for (const f of [stage1, run, launcher]) chmodSync(f, 0o755);
  }, 60_000);
  afterAll(() => cleanup(dir));

  test(`${MANY} processes waiting for their libc at once are all probed; ${NOLIBC} that never map one are reported`, async () => {
    const targets = writeTargets(dir, { targets: [{ workload: NAME }] });
    const spawned: ReturnType<typeof Bun.spawn>[] = [];
    const spawn = (cmd: string[]) => {
      const p = Bun.spawn([...NOBODY, ...cmd], { stdout: "pipe", stderr: "pipe" });
      spawned.push(p);
      return p;
    };
    let ptopProc: ReturnType<typeof Bun.spawn> | undefined;
    try {
      // One process with its malloc from the start (that never calls it): the probe attaches when
      // the window opens.
      spawn([run, "nolibc"]);
      for (let i = 0; i < NOLIBC; i++) spawn([stage1, "nolibc"]);
      ptopProc = Bun.spawn([...NOBODY, ptop, "--targets", targets, "--workload", NAME, "--duration", "120", "--probes", "alloc"], { stdout: "pipe", stderr: "pipe" });
      const stream = new Lines(ptopProc.stdout as ReadableStream<Uint8Array>);
      await stream.until(/"type":"header"/, 60_000);
      const launch = spawn([launcher, String(MANY), stage1, run]);
      const out = new Lines(launch.stdout as ReadableStream<Uint8Array>);
      let pids: number[] = [];
      for (const deadline = Date.now() + 120_000; pids.length < MANY && Date.now() < deadline; await sleep(500))
        pids = [...(await out.snapshot()).matchAll(/allocated (\d+)\n/g)].map((x) => Number(x[1]));
      const records = await interruptPtop(ptopProc, stream);
      const summary = records.find((r): r is SummaryRecord => r.type === "summary")!;
      const coverage = summary.notes?.find((n) => n.includes("got no allocation uprobe"));
      const procs = new Set(records.filter((r) => r.type === "process").map((r) => (r as { pid: number }).pid));
      const total = summary.totals!.alloc!;
      const bytes = new Map<number, number>();
      for (const s of stacksOf(records, "alloc")) if (s.pid !== undefined) bytes.set(s.pid, (bytes.get(s.pid) ?? 0) + s.value);
      const unseen = pids.filter((p) => !(bytes.get(p)! > 0));
      console.log(JSON.stringify({ pids: pids.length, unseen: unseen.length, totalMiB: total / MIB, lost: summary.lost.alloc, processes: procs.size, coverage }));
      expect(new Set(pids).size).toBe(MANY);
      expect(pids.filter((p) => !procs.has(p))).toEqual([]);
      // 16 MiB from each of the MANY, nothing else: at one stack per 512 KiB on average, ~32 stacks
      // each (none at all: e^-32). The byte counters count every call once the program is attached
      // to the uprobe; the breakpoint is in a moment before (perf_event_open, then the attach), and
      // when the workload allocated as soon as it saw it, 1 or 16 MiB of 4,800 went uncounted in 2
      // of 6 runs: it now waits 0.5 s more. The total is checked to 1% (one process not probed at
      // all is 0.33%; the old bound of 256 left 15% out).
      expect(unseen).toEqual([]);
      expect(total / MIB).toBeLessThanOrEqual(MANY * 16);
      expect(total / MIB).toBeGreaterThan(MANY * 16 * 0.99);
      // Of every target process: MANY + NOLIBC + the first one.
      expect(procs.size).toBe(MANY + NOLIBC + 1);
      expect(coverage).toStartWith(`alloc: ${NOLIBC} of ${procs.size} target processes got no allocation uprobe, so their allocations are not counted: ${NOLIBC} no libc or allocation entry point found within 2 s (last: pid `);
    } finally {
      ptopProc?.kill("SIGKILL");
      for (const p of spawned) p.kill("SIGKILL"); // the launcher's children die with it (PR_SET_PDEATHSIG)
      await Promise.all(spawned.map((p) => p.exited));
    }
  }, 240_000);
});
