// Processes that map a file called libjvm.so but are no HotSpot ptop can walk
// (test/fixtures/workloads/fake_jvm.c): one whose libjvm.so exports no serviceability tables, one
// whose tables are well formed and describe nothing. Each is named in the summary's notes with
// why ("java frames: unsupported JVM …"), and its stacks stay native: no Java frame is guessed.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { liveAvailable, NOT_ROOT, REPO_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT, type SummaryRecord } from "../../src/protocol/profile-stream.ts";
import { cleanup, framesById, runPtop, setcapPtop, sharedTempDir, sleep, spawnAsNobody, stacksOf, writeTargets } from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();
const SRC = resolve(REPO_ROOT, "test/fixtures/workloads/fake_jvm.c");

describeUnless(whyNot([!live, NOT_ROOT], [!Bun.which("clang"), "needs clang"]))("ptop and processes that only look like a JVM (live)", () => {
  let dir = "", ptop = "", exe = "";
  const workload = `fakejvm${process.pid}`;
  const cc = (args: string[]) => {
    const r = Bun.spawnSync(["clang", "-O1", ...args], { stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`clang failed: ${r.stderr.toString()}`);
  };
  beforeAll(() => {
    dir = sharedTempDir("ptop-java-fake-");
    ptop = setcapPtop(dir);
    exe = join(dir, workload);
    cc([SRC, "-o", exe, "-ldl"]);
    for (const [kind, define] of [["bare", "-DFAKE_LIBJVM_BARE"], ["tables", "-DFAKE_LIBJVM_TABLES"]] as const) {
      mkdirSync(join(dir, kind));
      chmodSync(join(dir, kind), 0o755);
      cc(["-shared", "-fPIC", define, SRC, "-o", join(dir, kind, "libjvm.so")]);
    }
  }, 60_000);
  afterAll(() => cleanup(dir));

  test("each is named in the notes with why, and its stacks stay native", async () => {
    const bare = spawnAsNobody([exe, join(dir, "bare/libjvm.so")]);
    const tables = spawnAsNobody([exe, join(dir, "tables/libjvm.so")]);
    try {
      await sleep(300);
      const targets = writeTargets(dir, { targets: [{ workload }] });
      const run = await runPtop(ptop, ["--targets", targets, "--workload", workload, "--duration", "1", "--probes", "cpu"]);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      const notes = (run.records.find((r): r is SummaryRecord => r.type === "summary")!.notes ?? []).filter((n) => n.startsWith("java frames"));
      expect(notes.sort()).toEqual([
        `java frames: unsupported JVM (pid ${bare.pid}): its libjvm.so exports no gHotSpotVMStructs tables; its stacks are native only`,
        `java frames: unsupported JVM (pid ${tables.pid}): its structure tables do not describe Abstract_VM_Version::_vm_major_version; its stacks are native only`,
      ].sort());
      const frames = framesById(run.records);
      expect([...frames.values()].filter((f) => f.kind === "java")).toEqual([]);
      // both spin in their own code, named natively
      for (const p of [bare, tables]) {
        const own = stacksOf(run.records, "cpu").filter((s) => s.pid === p.pid && s.frames.some((id) => frames.get(id)?.function === "fake_jvm_spin"));
        expect({ pid: p.pid, named: own.length > 0 }).toEqual({ pid: p.pid, named: true });
      }
    } finally {
      for (const p of [bare, tables]) p.kill("SIGKILL");
      await Promise.all([bare.exited, tables.exited]);
    }
  }, 60_000);
});
