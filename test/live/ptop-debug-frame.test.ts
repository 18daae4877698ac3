// CFI from a separate debug file: a program whose own functions have rules only in .debug_frame
// (built -fno-asynchronous-unwind-tables -fno-unwind-tables -g, no frame pointers), with that
// section moved to its debug file (strip --strip-debug keeps the names). ptop's unwinder finds the
// debug file by build-id under /usr/lib/debug/.build-id/ and walks through main; the control, the
// same binary without its debug file installed, cannot.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { liveAvailable, NOT_ROOT, REPO_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT, type StreamRecord } from "../../src/protocol/profile-stream.ts";
import { cleanup, runPtop, setcapPtop, sharedTempDir, sleep, spawnAsNobody, writeTargets } from "./ptop-harness.ts";
import { expectHotStacksWhole } from "./ptop-checks.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();
const haveGcc = Bun.which("gcc") !== null;
const NAME = "debugframeloop"; // a name of its own: no other test's hotloop answers for it

function sh(cmd: string[]): string {
  const r = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

describeUnless(whyNot([!live, NOT_ROOT], [!haveGcc, "needs gcc"]))("ptop unwinds with .debug_frame from a separate debug file (live)", () => {
  let dir = "";
  let ptop = "";
  let bin = "";
  let debug = "";
  let installed = "";
  let createdDir: string | undefined;
  beforeAll(() => {
    dir = sharedTempDir("ptop-debugframe-");
    ptop = setcapPtop(dir);
    const sub = join(dir, "bin");
    mkdirSync(sub);
    chmodSync(sub, 0o755);
    bin = join(sub, NAME);
    sh(["gcc", "-O2", "-g", "-fomit-frame-pointer", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables", "-fno-inline",
      "-pthread", resolve(REPO_ROOT, "test/fixtures/workloads/hotloop.c"), "-o", bin]);
    debug = join(dir, `${NAME}.debug`);
    sh(["objcopy", "--only-keep-debug", bin, debug]);
    sh(["strip", "--strip-debug", bin]);
    chmodSync(bin, 0o755);
    chmodSync(debug, 0o644);
    // What makes it the case: no .debug_frame left in the binary, and no .eh_frame rule for its
    // own functions (only the C runtime's start-up code has one).
    expect(sh(["readelf", "-S", "-W", bin])).not.toContain(".debug_frame");
    expect(sh(["readelf", "-S", "-W", debug])).toContain(".debug_frame");
    const id = sh(["readelf", "-n", bin]).match(/Build ID: ([0-9a-f]+)/)![1]!;
    const idDir = `/usr/lib/debug/.build-id/${id.slice(0, 2)}`;
    createdDir = mkdirSync(idDir, { recursive: true });
    installed = `${idDir}/${id.slice(2)}.debug`;
  }, 60_000);
  afterAll(() => {
    rmSync(installed, { force: true });
    if (createdDir) rmSync(createdDir, { recursive: true, force: true });
    cleanup(dir);
  });

  async function capture(): Promise<StreamRecord[]> {
    const work = spawnAsNobody([bin, "1", "12"]);
    try {
      await sleep(300);
      const targets = writeTargets(dir, { targets: [{ workload: NAME }] });
      const run = await runPtop(ptop, ["--targets", targets, "--workload", NAME, "--duration", "4", "--probes", "cpu"]);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      return run.records.filter((r) => r.type !== "stack" || r.pid === work.pid);
    } finally {
      work.kill("SIGTERM");
      await work.exited;
    }
  }

  test("control: without the debug file the hot functions' stacks do not reach main", async () => {
    rmSync(installed, { force: true });
    const records = await capture();
    expect(() => expectHotStacksWhole(records, 0.5)).toThrow();
  }, 60_000);

  test("with the debug file under /usr/lib/debug/.build-id: stacks whole through worker and main", async () => {
    sh(["cp", debug, installed]);
    chmodSync(installed, 0o644);
    expectHotStacksWhole(await capture(), 0.9);
  }, 60_000);
});
