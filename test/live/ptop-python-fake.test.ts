// A fake CPython 3.13.1 with hostile _Py_DebugOffsets (test/fixtures/workloads/fake_python.c): 3.13 is
// a supported version, so the summary's note must say what is wrong (its offsets disagree with
// ptop's table), not call 3.13.1 unsupported, which contradicted the "supported: 3.8 to 3.13" beside
// it (issue 29, item 11). Its stacks stay native.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { liveAvailable, NOT_ROOT, REPO_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT, type SummaryRecord } from "../../src/protocol/profile-stream.ts";
import { cleanup, framesById, runPtop, setcapPtop, sharedTempDir, sleep, spawnAsNobody, stacksOf, writeTargets } from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();

describeUnless(whyNot([!live, NOT_ROOT], [!Bun.which("clang"), "needs clang"]))("ptop and a fake interpreter (live)", () => {
  let dir = "", ptop = "", fake = "";
  beforeAll(() => {
    dir = sharedTempDir("ptop-python-fake-");
    ptop = setcapPtop(dir);
    // Its own folder, so that the workload name (the executable's) is this run's only.
    const bin = join(dir, `run${process.pid}`);
    mkdirSync(bin);
    chmodSync(bin, 0o755);
    fake = join(bin, "python3.13");
    const cc = Bun.spawnSync(["clang", "-O1", resolve(REPO_ROOT, "test/fixtures/workloads/fake_python.c"), "-o", fake], { stderr: "pipe" });
    if (cc.exitCode !== 0) throw new Error(`clang failed: ${cc.stderr.toString()}`);
  }, 60_000);
  afterAll(() => cleanup(dir));

  test("its note names the offsets that disagree, not an unsupported 3.13.1", async () => {
    const proc = spawnAsNobody([fake]);
    try {
      await sleep(300);
      const targets = writeTargets(dir, { targets: [{ workload: "python3.13" }] });
      const run = await runPtop(ptop, ["--targets", targets, "--workload", "python3.13", "--duration", "1", "--probes", "cpu"]);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      const notes = run.records.find((r): r is SummaryRecord => r.type === "summary")!.notes ?? [];
      const mine = notes.filter((n) => n.includes(`(pid ${proc.pid})`));
      expect(mine).toEqual([
        `python frames: CPython 3.13.1 (pid ${proc.pid}) not walked: its _Py_DebugOffsets disagree with ptop's table for this version (a debug or free-threaded build, or not CPython); its stacks are native only`,
      ]);
      expect([...framesById(run.records).values()].filter((f) => f.kind === "python")).toEqual([]);
      expect(stacksOf(run.records, "cpu").length).toBeGreaterThan(0);
    } finally {
      proc.kill("SIGKILL");
      await proc.exited;
    }
  }, 60_000);
});
