// `runner profiler` and `runner doctor` as real processes, on inputs whose verdict does not
// depend on the host: an incomplete environment is always refused.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { resolve } from "node:path";
import { runnerCommand } from "../helpers/runner-bin.ts";

// Each test starts real processes; a loaded machine (or a cold transpile from sources) is slow.
setDefaultTimeout(60_000);

function run(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawnSync([...runnerCommand(), ...args], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/tmp", ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

describe("runner profiler", () => {
  test("--boot-only with no environment: exit 78, one line per refusal with cost and fix", () => {
    const r = run(["profiler", "--boot-only"], { RUNNER_BOOTSTRAP_TOKEN: "rpboot_neverShown" });
    expect(r.code).toBe(78);
    const lines = r.err.trim().split("\n");
    expect(lines[0]).toMatch(/^runner profiler: boot refused, \d+ problems:$/);
    for (const line of lines.slice(1)) {
      expect(line).toMatch(/^refused \[[a-z-]+\] .+ \| cost: .+ \| fix: docker\/compose: .+; Kubernetes: .+; systemd: .+$/);
    }
    for (const v of ["RUNNER_TENANT", "RUNNER_INSTANCE_ID", "RUNNER_TUNNEL_URL", "RUNNER_ENROLL_URL", "RUNNER_IDENTITY_DIR", "RUNNER_PROFILE_TARGETS_FILE"]) {
      expect(r.err).toContain(`${v} is not set`);
    }
    expect(r.err + r.out).not.toContain("neverShown");
    expect(r.out).not.toContain("profiler booted");
  });

  test("an unknown option is a usage error", () => {
    const r = run(["profiler", "--boot-olny"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown option --boot-olny");
  });
});

describe("runner doctor", () => {
  test("--json lists every check with its status; exit 1 when the boot would be refused", () => {
    const r = run(["doctor", "--json"], { RUNNER_PROFILE_TARGETS_FILE: resolve(import.meta.dir, "../fixtures/targets/accept/valid.json") });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out) as { ok: boolean; instrumentation: string; findings: { check: string; status: string; message: string }[] };
    expect(report.ok).toBe(false);
    const checks = new Set(report.findings.map((f) => f.check));
    // Where a built dist/ptop exists the collector is found and its capabilities are judged;
    // elsewhere the missing collector is the finding. One of the two always is.
    expect(checks.has("collector") || checks.has("capabilities")).toBe(true);
    for (const c of ["env", "targets", "supervisor", "bounding-set", "no-new-privs", "user-namespace", "pid-namespace", "tracing", "apparmor", "memory", "orchestrator", "restart"]) {
      expect(checks.has(c)).toBe(true);
    }
    expect(report.findings.find((f) => f.check === "targets")!.status).toBe("pass");
    // The release-signature check (runner and ptop are the signed bytes) is a requirement too.
    expect(report.findings.some((f) => /signed release|release manifest/.test(f.message))).toBe(true);
    expect(report.instrumentation).toMatch(/^(fully instrumented|\d of \d probes)/);
  });

  test("text output: pass / FAIL / warn lines and a verdict", () => {
    const r = run(["doctor"]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("FAIL  [env] RUNNER_TENANT is not set");
    expect(r.out).toContain("the Profiler would refuse to boot");
  });

  test("an unknown option is a usage error; --help prints the usage", () => {
    const r = run(["doctor", "--jsno"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("runner doctor: unknown option --jsno");
    const h = run(["doctor", "--help"]);
    expect(h.code).toBe(0);
    expect(h.out).toStartWith("usage: runner doctor [--json]\n       runner doctor --data DIR [--json]");
  });
});
