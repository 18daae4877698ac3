// Stripped binaries get their symbols from a separate debug file: by build-id under
// /usr/lib/debug/.build-id/, or by .gnu_debuglink next to the binary (<dir>/.debug/NAME).
// Or from MiniDebugInfo: the xz-compressed symbol table some distributions keep inside the binary
// (.gnu_debugdata). Control: without either, the stripped binary's hot functions are unresolved.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import { addMiniDebugInfo, buildHotloop, cleanup, runPtop, setcapPtop, sharedTempDir, sleep, spawnAsNobody, writeTargets } from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();

function sh(cmd: string[]): string {
  const r = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

function buildId(file: string): string {
  const m = sh(["readelf", "-n", file]).match(/Build ID: ([0-9a-f]+)/);
  if (!m) throw new Error("no build-id");
  return m[1]!;
}

describeUnless(whyNot([!live, NOT_ROOT]))("ptop debug-file symbol lookup (live)", () => {
  let dir = "";
  let ptop = "";
  beforeAll(() => {
    dir = sharedTempDir("ptop-debuginfo-");
    ptop = setcapPtop(dir);
  });
  afterAll(() => cleanup(dir));

  /** Builds hotloop into its own directory as NAME, splits its symbols into DEBUG, strips it. */
  function strippedHotloop(name: string): { bin: string; debug: string; sub: string } {
    const sub = join(dir, name);
    mkdirSync(sub);
    chmodSync(sub, 0o755);
    // A build-id of its own: the build is deterministic, and a parallel run's build-id test puts
    // a debug file for the common id under /usr/lib/debug, which this control would then find.
    const id = [...crypto.getRandomValues(new Uint8Array(20))].map((b) => b.toString(16).padStart(2, "0")).join("");
    const bin = buildHotloop(sub, "hotloop", ["-fno-omit-frame-pointer", "-mno-omit-leaf-frame-pointer", `-Wl,--build-id=0x${id}`]);
    const debug = join(sub, "hotloop.debug");
    sh(["objcopy", "--only-keep-debug", bin, debug]);
    sh(["strip", "--strip-all", bin]);
    sh(["objcopy", "--add-gnu-debuglink", debug, bin]);
    return { bin, debug, sub };
  }

  async function leafNames(bin: string, workload = "hotloop"): Promise<string[]> {
    const work = spawnAsNobody([bin, "1", "8"]);
    try {
      await sleep(300);
      const targets = writeTargets(dir, { targets: [{ workload }] });
      const run = await runPtop(ptop, ["--targets", targets, "--workload", workload, "--duration", "2", "--probes", "cpu"]);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      // Only this process's frames: another test's hotloop (with its symbols) may run meanwhile.
      const own = new Set(run.records.flatMap((r) => (r.type === "stack" && r.pid === work.pid ? r.frames : [])));
      return run.records.flatMap((r) => (r.type === "frame" && r.kind === "native" && own.has(r.id) ? [r.function] : []));
    } finally {
      work.kill("SIGTERM");
      await work.exited;
    }
  }

  test("control: a stripped binary without a debug file leaves its functions unnamed (module+offset)", async () => {
    const { bin, debug } = strippedHotloop("none");
    rmSync(debug);
    const names = await leafNames(bin);
    expect(names).not.toContain("hot_alpha");
    // Unnamed code is identified by module and offset, stable across processes, never by address.
    expect(names.some((n) => /^[^ /]+\+0x[0-9a-f]+$/.test(n))).toBe(true);
  }, 30_000);

  test(".gnu_debuglink: <dir>/.debug/NAME next to the binary", async () => {
    const { bin, debug, sub } = strippedHotloop("debuglink");
    mkdirSync(join(sub, ".debug"));
    sh(["mv", debug, join(sub, ".debug", "hotloop.debug")]);
    sh(["chmod", "-R", "a+rX", sub]);
    const names = await leafNames(bin);
    expect(names).toContain("hot_alpha");
    expect(names).toContain("hot_beta");
  }, 30_000);

  test("build-id: /usr/lib/debug/.build-id/xx/rest.debug", async () => {
    const { bin, debug } = strippedHotloop("buildid");
    const id = buildId(bin);
    const target = `/usr/lib/debug/.build-id/${id.slice(0, 2)}/${id.slice(2)}.debug`;
    const idDir = `/usr/lib/debug/.build-id/${id.slice(0, 2)}`;
    const created = mkdirSync(idDir, { recursive: true }); // first directory created, if any
    sh(["mv", debug, target]);
    chmodSync(target, 0o644);
    try {
      const names = await leafNames(bin);
      expect(names).toContain("hot_alpha");
    } finally {
      rmSync(target, { force: true });
      if (created) rmSync(created, { recursive: true, force: true });
    }
  }, 30_000);

  test(".gnu_debugdata (MiniDebugInfo, built as Fedora's rpm does): names from the compressed symbol table inside the binary", async () => {
    const sub = join(dir, "minidebuginfo");
    mkdirSync(sub);
    chmodSync(sub, 0o755);
    // A name of its own: another hotloop on the host (with its symbols) must not answer for it.
    const bin = buildHotloop(sub, "minidebugloop");
    addMiniDebugInfo(bin);
    chmodSync(bin, 0o755);
    // What makes it a real case: no symbol table a plain reader sees, only the compressed one.
    expect(Bun.spawnSync(["nm", bin], { stderr: "pipe" }).stderr.toString()).toContain("no symbols");
    expect(sh(["readelf", "-S", "-W", bin])).toContain(".gnu_debugdata");
    const names = await leafNames(bin, "minidebugloop");
    expect(names).toContain("hot_alpha");
    expect(names).toContain("hot_beta");
  }, 60_000);
});
