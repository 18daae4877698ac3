// The reference systemd unit for bare hosts, parsed: a dedicated non-root user, no capability of
// its own, the five in the bounding set for ptop's file capabilities, NoNewPrivileges=no (and none
// of the options that imply no_new_privs), a persistent identity directory, the token through a
// credential, 512M, restart always except after a refused boot.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REQUIRED_CAPS } from "../../src/profiler/boot/capability-names.ts";
import { EXIT_REFUSED } from "../../src/profiler/command.ts";
import { REPO_ROOT } from "../helpers/runner-bin.ts";
import { testUnless } from "../helpers/skip.ts";
import { parseUnit, systemdAnalyze, verifyUnit } from "../helpers/systemd-unit.ts";

const text = readFileSync(join(REPO_ROOT, "image/runner-profiler.service"), "utf8");

const svc = parseUnit(text).Service!;
const one = (k: string) => {
  expect(svc[k]).toHaveLength(1);
  return svc[k]![0]!;
};
const env = Object.fromEntries((svc.Environment ?? []).map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]));

describe("reference systemd unit", () => {
  test("runs the Profiler as a dedicated non-root user, not DynamicUser", () => {
    expect(one("User")).toBe("runner-profiler");
    expect(one("ExecStart")).toBe("/opt/runner/runner profiler");
    expect(svc.DynamicUser).toBeUndefined();
  });

  test("the service holds no capability; the bounding set keeps exactly the five for ptop", () => {
    expect(one("AmbientCapabilities")).toBe("");
    expect(one("CapabilityBoundingSet").split(/\s+/).sort()).toEqual(REQUIRED_CAPS.map((c) => c.name).sort());
  });

  test("NoNewPrivileges=no, explained, and no option that implies no_new_privs", () => {
    expect(one("NoNewPrivileges")).toBe("no");
    const at = text.indexOf("NoNewPrivileges=no is REQUIRED");
    expect(at).toBeGreaterThan(0);
    expect(text.slice(at, at + 200)).toMatch(/file capabilities/);
    for (const k of ["SystemCallFilter", "SystemCallArchitectures", "RestrictAddressFamilies", "RestrictNamespaces", "PrivateDevices", "ProtectKernelTunables", "ProtectKernelModules", "ProtectKernelLogs", "ProtectClock", "MemoryDenyWriteExecute", "RestrictRealtime", "RestrictSUIDSGID", "LockPersonality", "DynamicUser", "PrivateUsers"]) {
      expect(svc[k]).toBeUndefined();
    }
  });

  test("file capabilities on ptop are part of the documented install", () => {
    expect(text).toContain("setcap cap_bpf,cap_perfmon,cap_sys_ptrace,cap_dac_read_search,cap_sys_admin+ep /opt/runner/ptop");
    // Executable by the unit's group only: whoever runs ptop may measure any process.
    expect(text).toContain("chown root:runner-profiler /opt/runner/ptop &&\n# chmod 0750 /opt/runner/ptop");
    expect(env.RUNNER_COLLECTOR_PATH).toBe("/opt/runner/ptop");
  });

  test("identity in a persistent state directory only the service user can read", () => {
    expect(env.RUNNER_IDENTITY_DIR).toBe(`/var/lib/${one("StateDirectory")}`);
    expect(one("StateDirectoryMode")).toBe("0700");
  });

  test("the bootstrap token comes through a systemd credential, never the environment", () => {
    expect(env.RUNNER_BOOTSTRAP_TOKEN).toBeUndefined();
    const [name] = one("LoadCredential").split(":");
    expect(env.RUNNER_BOOTSTRAP_TOKEN_FILE).toBe(`%d/${name}`);
  });

  test("512M, restarted unless stopped, but not in a loop after a refused boot", () => {
    expect(one("MemoryMax")).toBe("512M");
    expect(one("Restart")).toBe("always");
    expect(one("RestartPreventExitStatus")).toBe(String(EXIT_REFUSED));
  });

  test("the target list path is set and the tracing mounts are not hidden", () => {
    expect(env.RUNNER_PROFILE_TARGETS_FILE).toBe("/etc/runner/targets.json");
    for (const k of ["InaccessiblePaths", "TemporaryFileSystem"]) expect(svc[k]).toBeUndefined();
    expect(one("ProtectSystem")).not.toBe("strict");
  });

  // systemd's own parser: unknown keys or invalid values are reported on stderr. ExecStart points
  // at an executable that exists here (the unit's /opt/runner/runner is installed only on hosts).
  const analyze = systemdAnalyze;
  const verify = (unit: string) => verifyUnit("runner-profiler.service", unit, "/opt/runner/runner");

  testUnless(analyze ? null : "systemd-analyze is not installed (Debian: systemd)")("systemd-analyze verify accepts every line of the unit", () => {
    const r = verify(text);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });

  testUnless(analyze ? null : "systemd-analyze is not installed (Debian: systemd)")("systemd-analyze verify does report a bad line (the check above can fail)", () => {
    expect(verify(text.replace("MemoryMax=512M", "MemoryMax=512M\nNoSuchSetting=1")).stderr).toContain("Unknown key");
  });
});
