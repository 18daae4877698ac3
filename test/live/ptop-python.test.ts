// Python functions in ptop's stacks, for every CPython on the machine (Debian's python3 and pyenv's
// 3.8-3.13), the targets run as uid 65534 with no flag: known functions' inclusive shares match
// their constructed shares, the busy thread's samples carry Python frames, each thread shows its
// own function, and an unsupported interpreter is said so with native stacks only.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT, type SummaryRecord } from "../../src/protocol/profile-stream.ts";
import { NOBODY, cleanup, copyWorkload, framesById, runPtop, setcapPtop, sharedTempDir, sleep, stacksOf, writeTargets } from "./ptop-harness.ts";
import { SUPPORTED_MINORS, findInterpreters, findUnsupported, type Interpreter } from "./ptop-python-interpreters.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";
import { PY_SHARES_HOLD, pySharesChecked } from "./ptop-checks.ts";

const live = liveAvailable();

describeUnless(whyNot([!live, NOT_ROOT]))("ptop Python frames (live)", () => {
  let dir = "";
  let ptop = "";
  let interpreters: Interpreter[] = [];
  beforeAll(() => {
    dir = sharedTempDir("ptop-python-");
    ptop = setcapPtop(dir);
    interpreters = findInterpreters(dir);
  }, 120_000);
  afterAll(() => cleanup(dir), 120_000);

  async function capture(py: Interpreter, script: string, seconds: number) {
    const src = copyWorkload(dir, script);
    const targets = writeTargets(dir, { targets: [{ workload: py.workload }] }, `targets-${py.workload}.json`);
    const proc = Bun.spawn([...NOBODY, "env", "HOME=/tmp", ...py.env, py.exe, src], { stdout: "pipe", stderr: "pipe" });
    try {
      await sleep(1500); // past interpreter start-up
      const run = await runPtop(ptop, ["--targets", targets, "--workload", py.workload, "--duration", String(seconds), "--frequency", "999", "--probes", "cpu"]);
      expect(proc.exitCode).toBeNull(); // the target ran through the capture, unharmed
      // Only the interpreter this test started (its workload name is this run's own): another
      // process of the same name would blur every share below.
      expect(run.records.flatMap((r) => (r.type === "process" ? [r.pid] : []))).toEqual([proc.pid]);
      return run;
    } finally {
      proc.kill("SIGKILL");
      await proc.exited;
    }
  }

  test("the machine has Debian's python3 and a CPython of every supported minor version", () => {
    const minors = new Set(interpreters.filter((p) => !p.label.startsWith("debian")).map((p) => p.version.split(".").slice(0, 2).join(".")));
    expect([...minors].sort()).toEqual(expect.arrayContaining(SUPPORTED_MINORS));
    expect(interpreters.some((p) => p.label.startsWith("debian"))).toBe(true);
  });

  test("constructed shares: heavy() 75%, light() 25%, spin() in both, on every interpreter", async () => {
    const results: Record<string, ReturnType<typeof pySharesChecked>> = {};
    for (const py of interpreters) {
      const run = await capture(py, "py_shares.py", 8);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      results[py.label] = pySharesChecked(run.records, 400, () => 0.05);
    }
    console.log(JSON.stringify(Object.fromEntries(Object.entries(results).map(([label, r]) => [label, r.seen]))));
    for (const [label, r] of Object.entries(results)) expect({ label, ...r.holds }).toEqual({ label, ...PY_SHARES_HOLD });
  }, 300_000);

  test("each thread shows its own function: the hashing thread (GIL released) is never the GIL holder's", async () => {
    for (const py of interpreters) {
      const run = await capture(py, "py_threads.py", 4);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      const frames = framesById(run.records);
      let alpha = 0, beta = 0, mixed = 0, cryptoUnderAlpha = 0, cryptoUnderBeta = 0, total = 0;
      for (const s of stacksOf(run.records, "cpu")) {
        total += s.value;
        const fs = s.frames.map((id) => frames.get(id)!);
        const a = fs.some((f) => f.kind === "python" && f.function === "alpha_worker");
        const b = fs.some((f) => f.kind === "python" && f.function === "beta_worker");
        const crypto = fs.some((f) => f.module?.includes("libcrypto") || f.function.includes("sha256"));
        if (a) alpha += s.value;
        if (b) beta += s.value;
        if (a && b) mixed += s.value;
        if (crypto && a) cryptoUnderAlpha += s.value;
        if (crypto && b) cryptoUnderBeta += s.value;
      }
      console.log(JSON.stringify({ py: py.label, total, alpha, beta, mixed, cryptoUnderAlpha, cryptoUnderBeta }));
      // each thread's own function shows (5%: the machine may starve one thread for a while)
      const r = { py: py.label, mixed, cryptoUnderAlpha, alphaSeen: alpha / total > 0.05, betaSeen: beta / total > 0.05, hashingIsBeta: cryptoUnderBeta > 0 };
      expect(r).toEqual({ py: py.label, mixed: 0, cryptoUnderAlpha: 0, alphaSeen: true, betaSeen: true, hashingIsBeta: true });
    }
  }, 300_000);

  test("an unsupported CPython is named in the summary notes and its stacks stay native", async () => {
    const old = findUnsupported(dir);
    if (!old) {
      console.log("no CPython 3.6/3.7 on this machine: the unsupported-version case is not exercised");
      return;
    }
    const run = await capture(old, "py_shares.py", 2);
    expect(run.exitCode).toBe(PTOP_EXIT.ok);
    const summary = run.records.find((r): r is SummaryRecord => r.type === "summary")!;
    expect(summary.notes?.some((n) => n.startsWith(`python frames: unsupported version ${old.version} `))).toBe(true);
    expect([...framesById(run.records).values()].filter((f) => f.kind === "python")).toEqual([]);
    expect(stacksOf(run.records, "cpu").length).toBeGreaterThan(0);
  }, 60_000);
});
