// ptop's CFI unwinder on this kernel: hotloop built without frame pointers still gets whole
// stacks for its three hot functions (hot function -> worker -> main or the thread start). The kernel matrix
// (test/kernels, scenario no_frame_pointers) applies the same checks on each guest kernel.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import { buildHotloop, cleanup, leafShares, runPtop, setcapPtop, sharedTempDir, sleep, spawnAsNobody, writeTargets } from "./ptop-harness.ts";
import { HOT, expectHotStacksWhole } from "./ptop-checks.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();

describeUnless(whyNot([!live, NOT_ROOT]))("ptop on a workload without frame pointers (live)", () => {
  let dir = "";
  let ptop = "";
  let hotloop = "";
  let targets = "";
  beforeAll(() => {
    dir = sharedTempDir("ptop-nofp-");
    ptop = setcapPtop(dir);
    mkdirSync(join(dir, "nofp"));
    chmodSync(join(dir, "nofp"), 0o755);
    hotloop = buildHotloop(join(dir, "nofp"), "hotloop", ["-fomit-frame-pointer"]);
    targets = writeTargets(dir, { targets: [{ workload: "hotloop" }] });
  }, 30_000);
  afterAll(() => cleanup(dir));

  test("stacks of the three hot functions unwound through worker and main", async () => {
    const work = spawnAsNobody([hotloop, "1", "20"]);
    try {
      await sleep(300);
      const run = await runPtop(ptop, ["--targets", targets, "--workload", "hotloop", "--duration", "8", "--probes", "cpu"]);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      // Only this process: another test's hotloop may run on a shared machine.
      const own = run.records.filter((r) => r.type !== "stack" || r.pid === work.pid);
      expect(HOT.filter((fn) => !leafShares(own).has(fn))).toEqual([]);
      expectHotStacksWhole(own, 0.9);
    } finally {
      work.kill("SIGTERM");
      await work.exited;
    }
  }, 60_000);
});
