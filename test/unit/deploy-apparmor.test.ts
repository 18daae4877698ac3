// The AppArmor profile: compiled by apparmor_parser against a fixed feature set (-Q: no kernel
// load, -K: no cache, -M: features file), so it is checked the same on a host without AppArmor.
// It must keep the default container rules, add ptrace (read) peer=unconfined, and never be
// unconfined itself.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROFILE_NAME } from "../../src/profiler/boot/apparmor.ts";
import { REPO_ROOT } from "../helpers/runner-bin.ts";
import { testUnless } from "../helpers/skip.ts";

const PROFILE = join(REPO_ROOT, "apparmor", PROFILE_NAME);
const FEATURES = "/usr/share/apparmor-features/features"; // shipped by Debian's apparmor package
const PARSER = ["/usr/sbin/apparmor_parser", "/sbin/apparmor_parser"].find((p) => existsSync(p));
const text = readFileSync(PROFILE, "utf8");

// Where the deployment tooling is required (CI, RUNNER_REQUIRE_IMAGE=1), a missing parser is a failure, not a skip.
if (!PARSER && process.env.RUNNER_REQUIRE_IMAGE === "1") throw new Error("apparmor_parser is missing (apt-get install apparmor)");

function parse(file: string): { code: number; stderr: string; size: number } {
  const r = Bun.spawnSync([PARSER!, "-Q", "-K", "-M", FEATURES, "-S", file], { stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, stderr: r.stderr.toString(), size: r.stdout.length };
}

describe("apparmor/runner-profiler", () => {
  testUnless(PARSER ? null : "apparmor_parser is not installed (Debian: apparmor)")("compiles with apparmor_parser -Q -K -M against the packaged feature set", () => {
    const r = parse(PROFILE);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.size).toBeGreaterThan(1000); // a binary policy came out
  });

  testUnless(PARSER ? null : "apparmor_parser is not installed (Debian: apparmor)")("the parser does reject a broken copy (the check above can fail)", () => {
    const broken = join(mkdtempSync(join(tmpdir(), "apparmor-")), PROFILE_NAME);
    writeFileSync(broken, text.replace("ptrace (read) peer=unconfined,", "ptrace (read) peer=unconfined"));
    expect(parse(broken).code).not.toBe(0);
  });

  test("is named runner-profiler (what the boot check, docker, compose and the DaemonSet refer to)", () => {
    expect(text).toMatch(new RegExp(`^profile ${PROFILE_NAME} flags=\\(attach_disconnected,mediate_deleted\\) \\{`, "m"));
  });

  test("adds ptrace (read) with peer unconfined and the containerd default peer; never unconfined itself", () => {
    const rules = text.split("\n").map((l) => l.replace(/#.*$/, "").trim()).filter(Boolean);
    expect(rules).toContain("ptrace (read) peer=unconfined,");
    expect(rules).toContain("ptrace (read) peer=cri-containerd.apparmor.d,");
    expect(rules.some((r) => /flags=\([^)]*unconfined/.test(r))).toBe(false);
    // No broader ptrace than read towards foreign peers.
    expect(rules.filter((r) => r.startsWith("ptrace") && !r.endsWith(`peer=${PROFILE_NAME},`)).every((r) => r.startsWith("ptrace (read) "))).toBe(true);
  });

  test("keeps the default container profile's deny rules", () => {
    for (const rule of ["deny mount,", "deny @{PROC}/sysrq-trigger rwklx,", "deny @{PROC}/kcore rwklx,", "deny /sys/firmware/** rwklx,", "deny /sys/kernel/security/** rwklx,", "deny @{PROC}/* w,"]) {
      expect(text).toContain(rule);
    }
  });
});
