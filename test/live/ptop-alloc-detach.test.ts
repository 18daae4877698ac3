// The alloc probe's detach does not grow with the number of target processes (issue 29, item 10):
// one perf-event uprobe per entry point cost ~0.12 s each to detach, one after the other under the
// kernel's event_mutex (5 per libc: 0.6 s a process, 55 s for 100), so the result of a 5-s window
// with 23 targets came 20 s late. ptop now attaches one multi-uprobe link per process and file and
// releases them together (native/ptop/src/collector/uprobe_link.c; figures in bench/RESULTS.md, "alloc
// detach"). 60 targets here: the old way's 36 s against a bound of 8 s.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT, type SummaryRecord } from "../../src/protocol/profile-stream.ts";
import { NOBODY, cleanup, parseStream, setcapPtop, sharedTempDir, sleep, spawnAsNobody, writeTargets } from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();
const TARGETS = 60;
const NAME = `allocdet${process.pid % 1000000}`; // this run's own processes only
// Multi-uprobe links with a per-process filter: Linux 6.6, the filter fixed in 6.10 (and stable).
const release = /^(\d+)\.(\d+)/.exec(Bun.spawnSync(["uname", "-r"]).stdout.toString());
const oldKernel = !release || Number(release[1]) * 1000 + Number(release[2]) < 6010;

describeUnless(whyNot([!live, NOT_ROOT], [oldKernel, "multi-uprobe links need Linux 6.10 (the per-uprobe detach remains there)"]))("ptop alloc detach (live)", () => {
  let dir = "", ptop = "", bin = "";
  beforeAll(() => {
    dir = sharedTempDir("ptop-alloc-detach-");
    ptop = setcapPtop(dir);
    mkdirSync(join(dir, "bin"));
    chmodSync(join(dir, "bin"), 0o755);
    bin = join(dir, "bin", NAME); // sleep under this run's name: a libc with its five entry points
    copyFileSync("/bin/sleep", bin);
    chmodSync(bin, 0o755);
  });
  afterAll(() => cleanup(dir));

  test(`${TARGETS} target processes are detached within seconds, not ${TARGETS} times 0.6 s`, async () => {
    const procs = Array.from({ length: TARGETS }, () => spawnAsNobody([bin, "60"]));
    try {
      await sleep(500);
      const targets = writeTargets(dir, { targets: [{ workload: NAME }] });
      const run = Bun.spawn([...NOBODY, "env", "PTOP_DEBUG=1", ptop, "--targets", targets, "--workload", NAME, "--duration", "1", "--probes", "alloc"], { stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text()]);
      expect(await run.exited).toBe(PTOP_EXIT.ok);
      const summary = parseStream(stdout).find((r): r is SummaryRecord => r.type === "summary")!;
      expect(summary.notes?.find((n) => n.includes("got no allocation uprobe"))).toBeUndefined(); // all covered
      const at = (phase: string) => Number(stderr.match(new RegExp(`timing: ([0-9.]+) s \\(cpu [0-9.]+ s\\) ${phase}`))?.[1]);
      const detach = at("window closed, probes detached") - at("window open \\(header written\\)") - summary.measured_sec;
      expect(detach).toBeLessThan(8);
    } finally {
      for (const p of procs) p.kill("SIGKILL");
      await Promise.all(procs.map((p) => p.exited));
    }
  }, 120_000);
});
