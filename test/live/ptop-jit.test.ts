// JIT symbols through perf maps read inside the target's mount namespace (/proc/PID/root/tmp):
// node with --perf-basic-prof, non-root; and a JVM given the old way out (Java 17,
// -XX:+PreserveFramePointer, `jcmd PID Compiler.perfmap`), whose compiled frames are now named by
// ptop's HotSpot walker (kind "java") rather than its perf map (ptop-java.test.ts: no flag at all).
import { afterAll, beforeAll, expect } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import {
  NOBODY, cleanup, copyWorkload, functionNames, leafShares, runPtop, setcapPtop, sharedTempDir, sleep, spawnAsNobody, writeTargets,
} from "./ptop-harness.ts";
import { describeUnless, testUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();
const haveJava = Bun.which("java") !== null && Bun.which("jcmd") !== null;
const haveNode = Bun.which("node") !== null;

describeUnless(whyNot([!live, NOT_ROOT]))("ptop JIT symbols (live)", () => {
  let dir = "";
  let ptop = "";
  let targets = "";
  beforeAll(() => {
    dir = sharedTempDir("ptop-jit-");
    ptop = setcapPtop(dir);
    targets = writeTargets(dir, { targets: [{ workload: "java" }, { workload: "node" }] });
  });
  afterAll(() => cleanup(dir));

  testUnless(whyNot([!haveJava && process.env.RUNNER_REQUIRE_LIVE !== "1", "needs java and jcmd"]))("a JVM with a perf map and frame pointers shows its Java methods, from the HotSpot walker", async () => {
    const src = copyWorkload(dir, "HotJava.java");
    const jvm = spawnAsNobody(["java", "-XX:+PreserveFramePointer", src, "90"], { cwd: dir });
    try {
      // Ask the JVM to write /tmp/perf-PID.map until the JIT has compiled both hot methods (a few
      // seconds on an idle machine, longer on a loaded one).
      const mapPath = `/tmp/perf-${jvm.pid}.map`;
      let compiled = false;
      for (let i = 0; i < 30 && !compiled; i++) {
        await sleep(1500);
        const jcmd = Bun.spawnSync([...NOBODY, "env", "HOME=/tmp", "jcmd", String(jvm.pid), "Compiler.perfmap"], { stdout: "pipe", stderr: "pipe" });
        if (jcmd.exitCode !== 0) continue; // the attach listener may not be up yet
        const map = existsSync(mapPath) ? readFileSync(mapPath, "utf8") : "";
        compiled = map.includes("HotJava.javaHotMultiply") && map.includes("HotJava.javaHotXorShift");
      }
      expect(compiled).toBe(true);
      const run = await runPtop(ptop, ["--targets", targets, "--workload", "java", "--duration", "4", "--probes", "cpu"]);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      const java = functionNames(run.records, "java");
      expect(java).toContain("HotJava.javaHotMultiply");
      expect(java).toContain("HotJava.javaHotXorShift");
      // Most of the JVM's CPU is in those two methods.
      const shares = leafShares(run.records);
      const hot = [...shares].filter(([f]) => f.includes("HotJava.javaHot")).reduce((a, [, v]) => a + v, 0);
      expect(hot).toBeGreaterThan(0.5);
    } finally {
      jvm.kill("SIGKILL");
      await jvm.exited;
      rmSync(`/tmp/perf-${jvm.pid}.map`, { force: true });
    }
  }, 90_000);

  testUnless(whyNot([!haveNode && process.env.RUNNER_REQUIRE_LIVE !== "1", "needs node"]))("node --perf-basic-prof shows JS function names", async () => {
    const src = copyWorkload(dir, "hot-node.js");
    const node = spawnAsNobody(["node", "--perf-basic-prof", src, "30"], { cwd: dir });
    try {
      await sleep(2000);
      const run = await runPtop(ptop, ["--targets", targets, "--workload", "node", "--duration", "3", "--probes", "cpu"]);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      const jit = functionNames(run.records, "jit");
      expect(jit.some((f) => f.includes("nodeHotSquareRoots"))).toBe(true);
      expect(jit.some((f) => f.includes("nodeHotStringHash"))).toBe(true);
    } finally {
      node.kill("SIGKILL");
      await node.exited;
      rmSync(`/tmp/perf-${node.pid}.map`, { force: true });
    }
  }, 60_000);
});
