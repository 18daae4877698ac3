// offcpu and syscalls use classic tracepoints, which need tracefs. Mounted: they attach and
// measure. Unmounted: they report attached:false with the reason and the fix, and cpu still
// works. The tracing mounts are restored to what they were before the test.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { liveAvailable } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import {
  buildHotloop, cleanup, framesById, runPtop, setcapPtop, sharedTempDir, sleep, spawnAsNobody, stacksOf, writeTargets,
} from "./ptop-harness.ts";

const live = liveAvailable();
const TRACING = "/sys/kernel/tracing";
const DEBUGFS = "/sys/kernel/debug";

function mounted(path: string): boolean {
  return readFileSync("/proc/self/mounts", "utf8").split("\n").some((l) => l.split(" ")[1] === path);
}
function run(cmd: string[]): void {
  const r = Bun.spawnSync(cmd, { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${r.stderr.toString().trim()}`);
}
function mountTracefs(): void {
  if (!mounted(TRACING)) run(["mount", "-t", "tracefs", "nodev", TRACING]);
}
/** Unmounts tracefs wherever ptop could find it (tracefs itself, and debugfs's tracing automount). */
function unmountTracing(): void {
  if (mounted(`${DEBUGFS}/tracing`)) run(["umount", `${DEBUGFS}/tracing`]);
  if (mounted(TRACING)) run(["umount", TRACING]);
  if (mounted(DEBUGFS)) run(["umount", DEBUGFS]);
}

describe.skipIf(!live)("ptop tracepoint probes and tracefs (live)", () => {
  let dir = "";
  let ptop = "";
  let hotloop = "";
  let targets = "";
  const before = { tracing: false, debugfs: false };
  beforeAll(() => {
    before.tracing = mounted(TRACING);
    before.debugfs = mounted(DEBUGFS);
    dir = sharedTempDir("ptop-tracefs-");
    ptop = setcapPtop(dir);
    hotloop = buildHotloop(dir);
    targets = writeTargets(dir, { targets: [{ workload: "hotloop" }] });
  });
  afterAll(() => {
    if (before.debugfs && !mounted(DEBUGFS)) run(["mount", "-t", "debugfs", "nodev", DEBUGFS]);
    if (before.tracing && !mounted(TRACING)) run(["mount", "-t", "tracefs", "nodev", TRACING]);
    if (!before.tracing && mounted(TRACING)) run(["umount", TRACING]);
    cleanup(dir);
  });

  test("with tracefs mounted, offcpu and syscalls attach and measure the blocked time and the syscalls", async () => {
    mountTracefs();
    const work = spawnAsNobody([hotloop, "1", "15", "sleepy"]);
    try {
      await sleep(300);
      const r = await runPtop(ptop, ["--targets", targets, "--workload", "hotloop", "--duration", "3"]);
      expect(r.exitCode).toBe(PTOP_EXIT.ok);
      const probes = r.records.filter((x) => x.type === "probe");
      expect(probes).toEqual([
        { type: "probe", name: "cpu", attached: true },
        { type: "probe", name: "offcpu", attached: true },
        { type: "probe", name: "syscalls", attached: true },
      ]);
      const frames = framesById(r.records);
      // offcpu: blocked time in libc's clock_nanosleep called from the worker (2 ms per round), in
      // nanoseconds. (libc has no frame pointers, so nap_between_rounds itself is skipped by the unwind.)
      const napNs = stacksOf(r.records, "offcpu")
        .filter((s) => s.frames.some((id) => frames.get(id)?.function === "clock_nanosleep" && frames.get(id)?.kind === "native"))
        .reduce((a, s) => a + s.value, 0);
      expect(napNs).toBeGreaterThan(1e9); // well over a third of the 3 s window is spent napping
      expect(napNs).toBeLessThan(3.5e9);
      // syscalls: clock_nanosleep named from the table, with a count and a total latency.
      const nano = stacksOf(r.records, "syscalls").filter((s) => frames.get(s.frames[0]!)?.function === "clock_nanosleep");
      expect(nano.length).toBe(1);
      expect(frames.get(nano[0]!.frames[0]!)?.kind).toBe("syscall");
      expect(nano[0]!.value).toBeGreaterThan(100);
      expect(nano[0]!.total_ns!).toBeGreaterThan(nano[0]!.value * 1e6); // each call sleeps >= 2 ms
      const summary = r.records.at(-1)!;
      if (summary.type !== "summary") throw new Error("no summary");
      expect(Object.keys(summary.samples).sort()).toEqual(["cpu", "offcpu", "syscalls"]);
    } finally {
      work.kill("SIGTERM");
      await work.exited;
    }
  }, 60_000);

  test("with tracefs unmounted, offcpu and syscalls are not attached with the reason; cpu still works", async () => {
    unmountTracing();
    const work = spawnAsNobody([hotloop, "1", "10"]);
    try {
      await sleep(300);
      const r = await runPtop(ptop, ["--targets", targets, "--workload", "hotloop", "--duration", "2"]);
      expect(r.exitCode).toBe(PTOP_EXIT.ok);
      const probes = r.records.filter((x) => x.type === "probe");
      expect(probes.find((p) => p.type === "probe" && p.name === "cpu")).toEqual({ type: "probe", name: "cpu", attached: true });
      for (const name of ["offcpu", "syscalls"]) {
        const p = probes.find((x) => x.type === "probe" && x.name === name);
        if (p?.type !== "probe") throw new Error(`no probe record for ${name}`);
        expect(p.attached).toBe(false);
        expect(p.reason).toContain("/sys/kernel/tracing");
        expect(p.reason).toContain("mount -t tracefs");
      }
      // Absent axes, not zero: no axis record, no stacks, no summary entry.
      expect(r.records.filter((x) => x.type === "axis").map((x) => x.type === "axis" && x.name)).toEqual(["cpu"]);
      expect(stacksOf(r.records, "offcpu")).toEqual([]);
      expect(stacksOf(r.records, "syscalls")).toEqual([]);
      expect(stacksOf(r.records, "cpu").length).toBeGreaterThan(0);
      const summary = r.records.at(-1)!;
      if (summary.type !== "summary") throw new Error("no summary");
      expect(Object.keys(summary.samples)).toEqual(["cpu"]);
      // One stderr line per probe that did not attach.
      const lines = r.stderr.trim().split("\n");
      expect(lines.length).toBe(2);
      expect(lines[0]).toContain("probe offcpu not attached");

      // Asking only for the tracepoint probes: nothing can attach, exit 5, one stderr line.
      const none = await runPtop(ptop, ["--targets", targets, "--workload", "hotloop", "--duration", "1", "--probes", "offcpu,syscalls"]);
      expect(none.exitCode).toBe(PTOP_EXIT.no_privilege);
      expect(none.stderr.trim().split("\n").length).toBe(1);
      expect(none.stderr).toContain("no probe could be attached");
      expect(none.stderr).toContain("mount -t tracefs");
      expect(none.records.map((x) => x.type)).toEqual(["header", "probe", "probe", "process", "summary"]);
      expect(none.records.filter((x) => x.type === "axis" || x.type === "stack")).toEqual([]);
    } finally {
      work.kill("SIGTERM");
      await work.exited;
    }
  }, 60_000);
});
