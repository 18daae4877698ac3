// A hostile target cannot make ptop read, with its privileges, a file the target itself could not
// read: a perf map that is a symlink or not owned by the target is ignored, and a mapped binary
// replaced on disk by a symlink is symbolized from the mapping itself (/proc/PID/map_files).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { liveAvailable } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import {
  NOBODY, buildHotloop, cleanup, copyWorkload, functionNames, runPtop, setcapPtop, sharedTempDir, sleep, spawnAsNobody, writeTargets,
} from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";
import { NOT_ROOT } from "../helpers/runner-bin.ts";

const live = liveAvailable();
const haveNode = Bun.which("node") !== null;
const required = process.env.RUNNER_REQUIRE_LIVE === "1";
const MARKER = "SECRET_LEAK_MARKER";

describeUnless(whyNot([!live, NOT_ROOT], [!haveNode && !required, "needs node for the hostile perf-map target"]))("ptop against a hostile target (live)", () => {
  let dir = "";
  let ptop = "";
  let secret = "";
  beforeAll(() => {
    dir = sharedTempDir("ptop-hostile-");
    ptop = setcapPtop(dir);
    // A root-only file shaped like a perf map covering every user address.
    secret = join(dir, "secret.map");
    writeFileSync(secret, `0 7fffffffffff ${MARKER}\n`);
    chmodSync(secret, 0o600);
  });
  afterAll(() => cleanup(dir));

  /** node without --perf-basic-prof: JIT code in anonymous memory and no perf map of its own. */
  async function captureNodeWith(plant: (mapPath: string) => void): Promise<string[]> {
    const script = copyWorkload(dir, "hot-node.js");
    const node = spawnAsNobody(["node", script, "20"], { cwd: dir });
    const mapPath = `/tmp/perf-${node.pid}.map`;
    try {
      await sleep(1500);
      plant(mapPath);
      const targets = writeTargets(dir, { targets: [{ workload: "node" }] });
      const run = await runPtop(ptop, ["--targets", targets, "--workload", "node", "--duration", "2", "--probes", "cpu"]);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      return functionNames(run.records);
    } finally {
      node.kill("SIGKILL");
      await node.exited;
      rmSync(mapPath, { force: true });
    }
  }

  test("control: a perf map written by the target's own uid is used", async () => {
    const names = await captureNodeWith((mapPath) => {
      const r = Bun.spawnSync([...NOBODY, "sh", "-c", `printf '0 7fffffffffff OWNED_BY_TARGET\\n' > ${mapPath}`]);
      expect(r.exitCode).toBe(0);
    });
    expect(names).toContain("OWNED_BY_TARGET");
  }, 30_000);

  test("a perf map that is a symlink to a root-only file is not followed", async () => {
    const names = await captureNodeWith((mapPath) => {
      const r = Bun.spawnSync([...NOBODY, "ln", "-s", secret, mapPath]);
      expect(r.exitCode).toBe(0);
    });
    expect(names.some((n) => n.includes(MARKER))).toBe(false);
  }, 30_000);

  test("a perf map not owned by the target's uid is ignored", async () => {
    const names = await captureNodeWith((mapPath) => {
      writeFileSync(mapPath, `0 7fffffffffff ${MARKER}\n`); // owned by root, not by the target
      chmodSync(mapPath, 0o644);
    });
    expect(names.some((n) => n.includes(MARKER))).toBe(false);
  }, 30_000);

  test("a mapped binary replaced by a symlink to a root-only ELF is read from the mapping, not the path", async () => {
    const bin = buildHotloop(dir, "hotloop");
    // A root-only ELF with a recognisable function name.
    const secretSrc = join(dir, "secret.c");
    writeFileSync(secretSrc, "int secret_leak_marker_fn(int x) { return x * 3; }\nint main(void) { return secret_leak_marker_fn(1); }\n");
    const secretBin = join(dir, "secret-elf");
    expect(Bun.spawnSync(["clang", "-O0", secretSrc, "-o", secretBin]).exitCode).toBe(0);
    chmodSync(secretBin, 0o700);
    const work = spawnAsNobody([bin, "1", "10"]);
    try {
      await sleep(300);
      unlinkSync(bin);
      Bun.spawnSync(["ln", "-s", secretBin, bin]);
      const targets = writeTargets(dir, { targets: [{ workload: "hotloop" }] });
      const run = await runPtop(ptop, ["--targets", targets, "--workload", "hotloop", "--duration", "2", "--probes", "cpu"]);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      const names = functionNames(run.records);
      expect(names.some((n) => n.includes("secret_leak_marker_fn"))).toBe(false);
      expect(names).toContain("hot_alpha");
    } finally {
      work.kill("SIGTERM");
      await work.exited;
    }
  }, 30_000);
});
