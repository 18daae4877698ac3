// ptop's `locks` probe on a real kernel: a C program built without frame pointers, in which one
// function waits for a pthread mutex another thread holds, timing every wait itself. ptop (five
// file capabilities, run as uid 65534) names that function's stack on the `locks` axis with the
// wait time the program measured, leaves the condition-variable idling off the axis, and groups
// the waits by lock in the summary. Then a version diff where v2 adds contention: `runner witness
// diff` flags the new waiter on `locks` and nothing off its path.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { liveAvailable, NOT_ROOT, REPO_ROOT, runnerCommand } from "../helpers/runner-bin.ts";
import { PTOP_EXIT, type StreamRecord, type SummaryRecord } from "../../src/protocol/profile-stream.ts";
import { cleanup, framesById, NOBODY, parseStream, runPtop, setcapPtop, sharedTempDir, sleep, stacksOf, writeTargets } from "./ptop-harness.ts";
import { parseStream as parseWitnessStream } from "../../src/witness/stream.ts";
import { instrumentation } from "../../src/witness/model.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";
import { expectLockWaiterTimed } from "./ptop-checks.ts";

const live = liveAvailable();
const TRACING = "/sys/kernel/tracing";
const WORKLOAD = "lockwait";

function mounted(path: string): boolean {
  return readFileSync("/proc/self/mounts", "utf8").split("\n").some((l) => l.split(" ")[1] === path);
}

/** Mounts tracefs when absent. Called before every capture, not once: another suite on the
 * machine (ptop-tracefs) unmounts the host's tracefs for a while and restores it. */
function ensureTracefs(): boolean {
  if (mounted(TRACING)) return false;
  Bun.spawnSync(["mount", "-t", "tracefs", "nodev", TRACING]);
  return true;
}

function summaryOf(records: StreamRecord[]): SummaryRecord {
  const s = records.at(-1);
  if (s?.type !== "summary") throw new Error("the stream has no summary record");
  return s;
}

/** Function names of a stack, root first. */
function names(records: StreamRecord[], frames: number[]): string[] {
  const byId = framesById(records);
  return frames.map((id) => byId.get(id)?.function ?? "?");
}

describeUnless(whyNot([!live, NOT_ROOT]))("ptop locks probe (live)", () => {
  let dir = "";
  let ptop = "";
  let bin = "";
  let targets = "";
  let mountedHere = false;
  beforeAll(() => {
    // The futex tracepoints are classic tracepoints: tracefs must be mounted (restored after).
    mountedHere = ensureTracefs();
    dir = sharedTempDir("ptop-locks-");
    ptop = setcapPtop(dir);
    bin = join(dir, WORKLOAD);
    const cc = Bun.spawnSync(
      ["clang", "-O1", "-fomit-frame-pointer", "-fno-inline", "-fno-optimize-sibling-calls", "-pthread",
        resolve(REPO_ROOT, "test/fixtures/workloads/lockwait.c"), "-o", bin],
      { stderr: "pipe" },
    );
    if (cc.exitCode !== 0) throw new Error(`building lockwait failed: ${cc.stderr.toString()}`);
    chmodSync(bin, 0o755);
    targets = writeTargets(dir, { targets: [{ workload: WORKLOAD }] });
  });
  afterAll(() => {
    if (mountedHere && mounted(TRACING)) Bun.spawnSync(["umount", TRACING]);
    cleanup(dir);
  });

  /** Runs `lockwait MODE` (its waiter timing every pthread_mutex_lock itself) under ptop --probes
   * locks, and checks the waiter's wait time on the axis against the program's own sum. */
  async function measureWaiter(mode: string, seconds: number) {
    const work = Bun.spawn([...NOBODY, bin, mode, "0"], { stdout: "pipe", stderr: "pipe" });
    const out = new Response(work.stdout).text();
    let run;
    try {
      await sleep(300);
      ensureTracefs();
      run = await runPtop(ptop, ["--targets", targets, "--workload", WORKLOAD, "--duration", String(seconds), "--probes", "locks"]);
    } finally {
      work.kill("SIGKILL");
      await work.exited;
    }
    expect(run.exitCode).toBe(PTOP_EXIT.ok);
    const r = run.records;
    const { summary, own, measured, hot } = expectLockWaiterTimed(r, work.pid, await out);
    return { r, summary, own, ownWaits: own.waits, measured, hot, pid: work.pid };
  }

  test("locks names the waiting function's stack with the wait time the program measured itself (within 10%)", async () => {
    const { r, summary, ownWaits, measured, hot, pid } = await measureWaiter("precise", 8);
    // Whole stacks through the CFI (no frame pointers): thread entry -> waiter -> libc's lock wait.
    for (const s of hot) {
      const n = names(r, s.frames);
      expect(n[0]).not.toBe("[truncated]");
      expect(n.indexOf("start_thread")).toBeLessThan(n.indexOf("wait_loop"));
      expect(n.indexOf("wait_loop")).toBeLessThan(n.indexOf("contend_on_hot_lock"));
      expect(n.indexOf("contend_on_hot_lock")).toBeLessThan(n.indexOf("timed_lock"));
      expect(n.some((f) => f.includes("pthread_mutex_lock"))).toBe(true);
    }
    // Nearly all the axis is that waiter (the holder and the condition variable's own mutex wait
    // only for instants).
    const total = stacksOf(r, "locks").filter((s) => s.pid === pid).reduce((a, s) => a + s.value, 0);
    expect(measured / total).toBeGreaterThan(0.95);

    // The condition-variable idling is not contention: off the axis (only the condvar's mutex
    // re-acquisition may appear), counted in a note.
    for (const s of stacksOf(r, "locks")) {
      const n = names(r, s.frames);
      if (n.includes("idle_on_condvar")) expect(n.some((f) => f.includes("mutex_cond_lock") || f.includes("pthread_mutex_lock"))).toBe(true);
    }
    expect((summary.notes ?? []).some((n) => n.startsWith("locks: ") && n.includes("not lock contention"))).toBe(true);

    // The summary groups the waits by lock: hot_lock first, with the waits and the waiter's stack.
    const locks = summary.locks ?? [];
    expect(locks.length).toBeGreaterThan(0);
    const top = locks[0]!;
    expect(top.pid).toBe(pid);
    expect(top.address).toMatch(/^0x[0-9a-f]+$/);
    expect(Math.abs(top.wait_ns / measured - 1)).toBeLessThan(0.01);
    expect(Math.abs(top.waits - ownWaits)).toBeLessThanOrEqual(3);
    expect(names(r, top.top_stack ?? [])).toContain("contend_on_hot_lock");
  }, 120_000);

  test("a priority-inheritance mutex (FUTEX_LOCK_PI) is a lock wait too, timed like the others (within 10%)", async () => {
    // glibc takes a PI mutex with FUTEX_LOCK_PI (no expected value): counted by its operation.
    const { r, hot } = await measureWaiter("precise-pi", 5);
    for (const s of hot) {
      const n = names(r, s.frames);
      expect(n[0]).not.toBe("[truncated]");
      expect(n.indexOf("wait_loop")).toBeLessThan(n.indexOf("contend_on_hot_lock"));
      expect(n.some((f) => f.includes("pthread_mutex_lock"))).toBe(true);
    }
  }, 120_000);

  test("a lock that waits with futex_waitv is timed like the others (within 10%), or the summary says futex_waitv is not covered", async () => {
    ensureTracefs();
    if (!existsSync(`${TRACING}/events/syscalls/sys_enter_futex_waitv`)) {
      // A kernel before 5.16: the probe attaches without futex_waitv and says so.
      const work = Bun.spawn([...NOBODY, bin, "precise", "0"], { stdout: "ignore", stderr: "ignore" });
      try {
        await sleep(300);
        const run = await runPtop(ptop, ["--targets", targets, "--workload", WORKLOAD, "--duration", "1", "--probes", "locks"]);
        expect((summaryOf(run.records).notes ?? []).some((n) => n.includes("futex_waitv is not covered"))).toBe(true);
      } finally {
        work.kill("SIGKILL");
        await work.exited;
      }
      return;
    }
    const { r, summary, hot } = await measureWaiter("precise-waitv", 5);
    expect((summary.notes ?? []).some((n) => n.includes("futex_waitv"))).toBe(false);
    for (const s of hot) {
      const n = names(r, s.frames);
      expect(n[0]).not.toBe("[truncated]");
      expect(n.indexOf("wait_loop")).toBeLessThan(n.indexOf("contend_on_hot_lock"));
      expect(n).toContain("waitv_lock");
    }
  }, 120_000);

  test("without tracefs, locks reports why and how to fix it; its axis is absent, not zero, and counts as 1 of 2 probes", async () => {
    const work = Bun.spawn([...NOBODY, bin, "precise", "0"], { stdout: "ignore", stderr: "ignore" });
    try {
      await sleep(300);
      // A private mount namespace without the tracing mounts (the host's stay as they are).
      const script = "while umount -R /sys/kernel/tracing 2>/dev/null; do :; done; while umount -R /sys/kernel/debug 2>/dev/null; do :; done; exec \"$@\"";
      const proc = Bun.spawn(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", ...NOBODY, ptop,
        "--targets", targets, "--workload", WORKLOAD, "--duration", "2", "--probes", "cpu,locks"], { stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
      expect(await proc.exited).toBe(PTOP_EXIT.ok);
      const r = parseStream(stdout);
      const probe = r.find((x) => x.type === "probe" && x.name === "locks");
      if (probe?.type !== "probe") throw new Error("no probe record for locks");
      expect(probe.attached).toBe(false);
      expect(probe.reason).toContain("mount -t tracefs");
      expect(stderr).toContain("probe locks not attached");
      expect(r.filter((x) => x.type === "axis").map((x) => x.type === "axis" && x.name)).toEqual(["cpu"]);
      expect(stacksOf(r, "locks")).toEqual([]);
      const summary = summaryOf(r);
      expect(Object.keys(summary.samples)).toEqual(["cpu"]);
      expect(summary.locks).toBeUndefined();
      const c = parseWitnessStream(stdout);
      expect(c.missing.map((m) => m.axis)).toEqual(["locks"]);
      expect(instrumentation(c)).toBe("1 of 2 probes");
    } finally {
      work.kill("SIGKILL");
      await work.exited;
    }
  }, 60_000);

  test("a version diff where v2 adds contention flags the new waiter on locks, and nothing off its path", async () => {
    async function captures(version: string, n: number): Promise<{ files: string[]; records: StreamRecord[][] }> {
      const work = Bun.spawn([...NOBODY, bin, version, "0"], { stdout: "ignore", stderr: "pipe" });
      const files: string[] = [];
      const records: StreamRecord[][] = [];
      try {
        await sleep(300);
        for (let i = 0; i < n; i++) {
          ensureTracefs();
          const run = await runPtop(ptop, ["--targets", targets, "--workload", WORKLOAD, "--duration", "4", "--probes", "locks"]);
          expect(run.exitCode).toBe(PTOP_EXIT.ok);
          const file = join(dir, `locks-${version}-${i}.jsonl`);
          writeFileSync(file, run.stdout);
          files.push(file);
          records.push(run.records);
        }
      } finally {
        work.kill("SIGKILL");
        await work.exited;
      }
      return { files, records };
    }
    const before = await captures("v1", 3);
    const after = await captures("v2", 3);
    // The new waiter is only in v2's captures.
    const hasV2 = (rs: StreamRecord[]) => stacksOf(rs, "locks").some((s) => names(rs, s.frames).includes("v2_contend"));
    expect(before.records.map(hasV2)).toEqual([false, false, false]);
    expect(after.records.map(hasV2)).toEqual([true, true, true]);
    // The functions on v2_contend's stacks: the only ones that may move.
    const onPath = new Set<string>();
    for (const rs of after.records)
      for (const s of stacksOf(rs, "locks")) {
        const n = names(rs, s.frames);
        if (n.includes("v2_contend")) n.forEach((f) => onPath.add(f));
      }

    // Lock-wait time per second: the rate normalisation.
    const d = Bun.spawnSync([...runnerCommand(), "witness", "diff", "--before", before.files.join(","), "--after", after.files.join(","), "--normalise", "rate", "--json"], { stdout: "pipe", stderr: "pipe" });
    expect(d.exitCode).toBe(0);
    const res = JSON.parse(d.stdout.toString()) as {
      verdict: string;
      axes_compared: { axis: string; unit: string }[];
      changes: { function: string; axis: string; kind: string; flagged: boolean; relative_change: number }[];
    };
    expect(res.axes_compared.map((a) => [a.axis, a.unit])).toEqual([["locks", "nanoseconds"]]);
    const flagged = res.changes.filter((c) => c.flagged);
    console.log(JSON.stringify({ verdict: res.verdict, flagged: flagged.map((c) => `${c.function} ${c.kind} ${c.relative_change.toFixed(2)}`) }));
    expect(res.verdict).toBe("changed");
    const v2 = flagged.filter((c) => c.function === "v2_contend" && c.axis === "locks");
    expect(v2.length).toBeGreaterThan(0);
    expect(v2.every((c) => c.relative_change > 0)).toBe(true);
    // No bystander: every flagged function lies on the new waiter's stacks; the unchanged waiters
    // and the holders are not flagged.
    expect(flagged.filter((c) => !onPath.has(c.function)).map((c) => c.function)).toEqual([]);
    expect(flagged.filter((c) => ["bystander_a", "bystander_b", "hold_lock"].includes(c.function))).toEqual([]);
  }, 300_000);
});
