// Processes that exit during ptop's window keep their names: a worker built without frame
// pointers spins in exitsym_spin and exits halfway through the window (the pre-fork server that
// recycles workers, the CLI job, the test runner). Its samples must come out as
// exitsym_spin <- main in its own binary, not [unknown] or [truncated]: the mappings and files
// ptop took while the process lived must still serve once it is gone.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { REPO_ROOT, liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT, type StreamRecord } from "../../src/protocol/profile-stream.ts";
import { cleanup, framesById, runPtop, setcapPtop, sharedTempDir, sleep, spawnAsNobody, stacksOf, writeTargets } from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();
const NAME = "exitsym_worker";

/** Of the samples of `pids`, how many and which share are named exitsym_spin called from main. */
function namedShare(records: StreamRecord[], pids: Set<number>) {
  const frames = framesById(records);
  let total = 0, named = 0;
  const other = new Map<string, number>();
  for (const s of stacksOf(records, "cpu")) {
    if (s.pid === undefined || !pids.has(s.pid)) continue;
    total += s.value;
    const names = s.frames.map((id) => frames.get(id)?.function ?? "?");
    const spin = names.lastIndexOf("exitsym_spin");
    const mods = s.frames.map((id) => frames.get(id)?.module ?? "");
    if (spin > 0 && names.slice(0, spin).includes("main") && mods[spin]?.endsWith(NAME)) named += s.value;
    else {
      const key = names.join(" <- ");
      other.set(key, (other.get(key) ?? 0) + s.value);
    }
  }
  return { total, named, share: total ? named / total : 0, other: [...other].sort((a, b) => b[1] - a[1]).slice(0, 5) };
}

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

  /** One worker (args to exitsym_worker) under a 6 s cpu capture: ≥ 90% of its samples named. */
  async function expectOneWorkerNamed(args: string[], settleMs: number) {
    const work = spawnAsNobody([worker, ...args]);
    try {
      await sleep(settleMs);
      const run = await runPtop(ptop, ["--targets", targets, "--workload", NAME, "--duration", "6", "--probes", "cpu"]);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      const r = namedShare(run.records, new Set([work.pid]));
      expect(r.total).toBeGreaterThan(20);
      expect({ ok: r.share >= 0.9, ...r }).toMatchObject({ ok: true });
    } finally {
      work.kill("SIGTERM");
      await work.exited;
    }
  }

  test("a worker running at the start that exits halfway through the window", () => expectOneWorkerNamed(["3500"], 300), 60_000);

  test("a worker that replaces itself (execve, same pid) every 0.4 s and exits within the window", () => expectOneWorkerNamed(["400", "8"], 0), 60_000);

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
      const r = namedShare(run.records, pids);
      expect(r.total).toBeGreaterThan(20);
      expect({ ok: r.share >= 0.9, ...r }).toMatchObject({ ok: true });
    } finally {
      stop = true;
      await recycler;
    }
  }, 60_000);
});
