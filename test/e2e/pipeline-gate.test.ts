// The pipeline owner's loop, end to end with the compiled binaries: a control plane, a Profiler as
// nobody with a setcap'd ptop, and the demo's service. The gate script of docs/ci-gate.md (taken
// from the doc itself) runs with two tokens — a capture token that queues, a read token that
// reads — for version 1.0.0, then 1.0.1, the same binary again (an A/A), then 1.1.0 (the demo's
// regression in apply_discounts). `runner capture --wait` must exit 0 on the A/A and 3 on the
// regression, which fails the script.
//
// The capture plan is the smallest that lets the A/A say `unchanged`: 10 s captures, a head and 3
// replicates, at 1999 Hz. At the default 399 Hz the promise behind `unchanged` ("a 10% change of a
// 10%-share function would be flagged", probability ≥ 0.8) holds with probability 0.08–0.17 only
// (about 4,000 samples per capture for the shop's two threads): witness answers `insufficient` and
// asks for 12–19 captures per version or 41–121 s captures, minutes of CI per version. Five times
// the frequency is five times the samples in the same 10 s: the final A/A verdict promised a 10%
// change above 6% of cpu with probability 0.80–0.87 in the runs of bench/RESULTS.md. The A/A comes
// first so that its baseline (1.0.0) has its whole plan: a regressed version's gate stops at the
// first confirmed replicate.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findCollector } from "../../src/demo/machine.ts";
import { OneMachine } from "../../src/demo/one-machine.ts";
import { buildShop, DEMO_WORKLOAD, REGRESSED_FUNCTION } from "../../src/demo/workload.ts";
import { liveAvailable, REPO_ROOT } from "../helpers/runner-bin.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const FREQUENCY_HZ = "1999";

const live = liveAvailable();
const collector = live ? findCollector() : null;
if (live && !collector && process.env.RUNNER_REQUIRE_LIVE === "1") throw new Error("RUNNER_REQUIRE_LIVE=1 but ptop is not built");

/** The gate script exactly as docs/ci-gate.md shows it. */
function gateScript(): string {
  const doc = readFileSync(join(REPO_ROOT, "docs/ci-gate.md"), "utf8");
  const m = /## The gate script[\s\S]*?```sh\n([\s\S]*?)```/.exec(doc);
  if (!m) throw new Error("docs/ci-gate.md has no gate script");
  return m[1]!;
}

describeUnless(whyNot([!live, "needs root and BPF"], [!collector, "dist/ptop is not built"]))("a pipeline gates a deploy on the verdict", () => {
  const dir = mkdtempSync(join(tmpdir(), "runner-pipeline-"));
  const m = new OneMachine({ dir, collectorSource: collector ?? "", targets: [DEMO_WORKLOAD], logLevel: "info" });
  const env: Record<string, string> = {};
  const script = join(dir, "profile-gate.sh");

  beforeAll(async () => {
    await m.setUp();
    await m.startProfiler("ci-node", { RUNNER_FREQUENCY_HZ: FREQUENCY_HZ });
    await m.waitProfilerUp("ci-node");
    const read = (await m.admin("read-token", "create", m.org, "deploy-gate", "--workload", DEMO_WORKLOAD)).trim().split("\n").at(-1)!;
    const bin = join(dir, "bin");
    mkdirSync(bin);
    symlinkSync(m.runner, join(bin, "runner"));
    writeFileSync(script, gateScript());
    chmodSync(script, 0o755);
    Object.assign(env, {
      PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      RUNNER_URL: m.apiUrl,
      RUNNER_CAPTURE_TOKEN: m.captureToken,
      RUNNER_READ_TOKEN: read,
      NODE_EXTRA_CA_CERTS: join(dir, "tls-cert.pem"), // the control plane's self-signed certificate
    });
  }, 120_000);
  afterAll(async () => {
    await m.tearDown();
    rmSync(dir, { recursive: true, force: true });
  });

  async function deploy(version: string, build: 1 | 2): Promise<{ code: number; out: string; table: string }> {
    const proc = m.startWorkload(await buildShop(dir, build), ["2"]);
    await Bun.sleep(500);
    const p = Bun.spawn(["sh", script, DEMO_WORKLOAD, version, "staging", "10", "3"], { env, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    proc.kill("SIGTERM");
    await proc.exited;
    // On a surprise, the whole diff (every function, not only the flagged ones) is in the failure.
    const head = /^\{"request_id":"([^"]+)"/m.exec(out)?.[1];
    const table = head ? await m.admin("captures", "diff", head).catch((e: Error) => e.message) : "";
    return { code, out: `${out}${err}`, table };
  }

  test("1.0.0: nothing to compare with yet, not blocking; 1.0.1, the same binary again (A/A): unchanged, exit 0", async () => {
    const first = await deploy("1.0.0", 1);
    expect({ code: first.code, out: first.out }).toEqual({ code: 0, out: expect.stringContaining("result: insufficient") });
    expect(first.out).toContain("the profile could not decide; not blocking");

    const same = await deploy("1.0.1", 1);
    expect({ code: same.code, tail: same.out.slice(-1500), diff: same.table }).toEqual({ code: 0, tail: expect.stringContaining("result: unchanged"), diff: expect.any(String) });
    expect(same.out).toContain("no regression");
  }, 420_000);

  test("1.1.0: a confirmed regression, exit 3, and the deploy stops", async () => {
    const regressed = await deploy("1.1.0", 2);
    expect({ code: regressed.code, tail: regressed.out.slice(-1500), diff: regressed.table }).toEqual({ code: 1, tail: expect.stringContaining("result: a confirmed regression (exit 3)"), diff: expect.any(String) });
    expect(regressed.out).toMatch(new RegExp(`↑ ${REGRESSED_FUNCTION}\\s+cpu (self|total)\\s+\\+\\d.*confirmed`));
    expect(regressed.out).toContain("confirmed regression: stopping the rollout");
    // the tokens never reach the output
    expect(regressed.out).not.toContain(env.RUNNER_READ_TOKEN!);
    expect(regressed.out).not.toContain(env.RUNNER_CAPTURE_TOKEN!);
  }, 240_000);
});
