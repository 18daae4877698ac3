// Processes that exit during ptop's window keep their names: a worker built without frame
// pointers spins in exitsym_spin and exits halfway through the window (the pre-fork server that
// recycles workers, the CLI job, the test runner). Its samples must come out as
// exitsym_spin <- main in its own binary, not [unknown] or [truncated]: the mappings and files
// ptop took while the process lived must still serve once it is gone.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { REPO_ROOT, liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import { cleanup, runPtop, setcapPtop, sharedTempDir, sleep, spawnAsNobody, writeTargets } from "./ptop-harness.ts";
import { exitsymNamedShare } from "./ptop-checks.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();
const NAME = "exitsym_worker";

describeUnless(whyNot([!live, NOT_ROOT]))("ptop on processes that exit during the window (live)", () => {
  let dir = "", ptop = "", worker = "", targets = "";
  beforeAll(() => {
    dir = sharedTempDir("ptop-exited-");
    ptop = setcapPtop(dir);
    mkdirSync(join(dir, "bin"));
    chmodSync(join(dir, "bin"), 0o755);
    worker = join(dir, "bin", NAME);
    const r = Bun.spawnSync(["clang", "-O1", "-fomit-frame-pointer", "-fno-inline",
      resolve(REPO_ROOT, "test/fixtures/workloads/exitsym_worker.c"), "-o", worker], { stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`building ${NAME} failed: ${r.stderr.toString()}`);
    chmodSync(worker, 0o755);
    targets = writeTargets(dir, { targets: [{ workload: NAME }] });
  }, 30_000);
  afterAll(() => cleanup(dir));

  /** One worker (args to exitsym_worker) under a 6 s cpu capture: at least `share` of its samples named. */
  async function expectOneWorkerNamed(args: string[], settleMs: number, share = 0.9) {
    const work = spawnAsNobody([worker, ...args]);
    try {
      await sleep(settleMs);
      const run = await runPtop(ptop, ["--targets", targets, "--workload", NAME, "--duration", "6", "--probes", "cpu"]);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      const r = exitsymNamedShare(run.records, new Set([work.pid]), NAME);
      expect(r.total).toBeGreaterThan(20);
      expect({ ok: r.share >= share, ...r }).toMatchObject({ ok: true });
    } finally {
      work.kill("SIGTERM");
      await work.exited;
    }
  }

  test("a worker running at the start that exits halfway through the window", () => expectOneWorkerNamed(["3500"], 300), 60_000);

  // The unwinder holds each new image's samples until it has that image's table (each sample
  // carries its exec generation, native/ptop/src/unwinder/unwind_child.c): 99.7-100% named in 6 runs here,
  // where the first 1-2% of an image's samples may fall in the dynamic loader before main. Without
  // holding, 61-88%: every sample between an exec and ptop's next look at the maps was lost.
  test("a worker that replaces itself (execve, same pid) every 0.4 s and exits within the window", () => expectOneWorkerNamed(["400", "8"], 0, 0.95), 60_000);

  test("workers recycled during the window, each living 0.6 s", async () => {
    const pids = new Set<number>();
    let stop = false;
    const recycler = (async () => {
      while (!stop) {
        const w = spawnAsNobody([worker, "600"]);
        pids.add(w.pid);
        await w.exited;
      }
    })();
    try {
      const run = await runPtop(ptop, ["--targets", targets, "--workload", NAME, "--duration", "6", "--probes", "cpu"]);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      const r = exitsymNamedShare(run.records, pids, NAME);
      expect(r.total).toBeGreaterThan(20);
      expect({ ok: r.share >= 0.9, ...r }).toMatchObject({ ok: true });
    } finally {
      stop = true;
      await recycler;
    }
  }, 60_000);
});
