// offcpu and syscalls use classic tracepoints, which need tracefs. Mounted: they attach and
// measure. Unmounted: they report attached:false with the reason and the fix, and cpu still
// works. The tracing mounts are restored to what they were before the test.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import { buildHotloop, cleanup, runPtop, setcapPtop, sharedTempDir, sleep, spawnAsNobody, writeTargets } from "./ptop-harness.ts";
import {
  expectKernelFrames, expectNothingAttachable, expectProbesAttached, expectSleepyAxes, expectTracefsMissing, kallsymsVisible,
} from "./ptop-checks.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

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

describeUnless(whyNot([!live, NOT_ROOT]))("ptop tracepoint probes and tracefs (live)", () => {
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
      const r = await runPtop(ptop, ["--targets", targets, "--workload", "hotloop", "--duration", "3", "--probes", "cpu,offcpu,syscalls"]);
      expect(r.exitCode).toBe(PTOP_EXIT.ok);
      expectProbesAttached(r.records, ["cpu", "offcpu", "syscalls"]);
      // offcpu: blocked time in libc's clock_nanosleep called from the worker (2 ms per round);
      // syscalls: clock_nanosleep named from the table, with a count and a total latency.
      expectSleepyAxes(r.records, 3);
      const sysctl = (name: string) => Number(readFileSync(`/proc/sys/kernel/${name}`, "utf8"));
      expectKernelFrames(r.records, kallsymsVisible(sysctl("kptr_restrict"), sysctl("perf_event_paranoid")));
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
      const r = await runPtop(ptop, ["--targets", targets, "--workload", "hotloop", "--duration", "2", "--probes", "cpu,offcpu,syscalls"]);
      expect(r.exitCode).toBe(PTOP_EXIT.ok);
      expectTracefsMissing(r);
      // Asking only for the tracepoint probes: nothing can attach, exit 5, one stderr line.
      expectNothingAttachable(await runPtop(ptop, ["--targets", targets, "--workload", "hotloop", "--duration", "1", "--probes", "offcpu,syscalls"]));
    } finally {
      work.kill("SIGTERM");
      await work.exited;
    }
  }, 60_000);
});
