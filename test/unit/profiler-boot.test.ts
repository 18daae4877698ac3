// boot() as a library call: the refusal contract the supervisor and its callers rely on.
import { describe, expect, test } from "bun:test";
import { boot, BootRefusal } from "../../src/profiler/boot/boot.ts";
import { formatRefusal } from "../../src/profiler/boot/finding.ts";

async function refusedWith(env: Record<string, string>): Promise<BootRefusal> {
  try {
    await boot(env);
  } catch (err) {
    expect(err).toBeInstanceOf(BootRefusal);
    return err as BootRefusal;
  }
  throw new Error("boot did not refuse");
}

describe("boot()", () => {
  test("an empty environment is refused with every missing variable, each with fix and cost", async () => {
    const e = await refusedWith({ RUNNER_COLLECTOR_PATH: "/nonexistent/ptop" });
    const env = e.refusals.filter((r) => r.check === "env").map((r) => r.subject).sort();
    expect(env).toEqual(["RUNNER_BOOTSTRAP_TOKEN", "RUNNER_ENROLL_URL", "RUNNER_IDENTITY_DIR", "RUNNER_INSTANCE_ID", "RUNNER_PROFILE_TARGETS_FILE", "RUNNER_TENANT", "RUNNER_TUNNEL_URL"]);
    expect(e.refusals.some((r) => r.check === "collector")).toBe(true);
    for (const r of e.refusals) {
      for (const k of ["check", "subject", "message", "fix", "cost"] as const) expect(r[k].length).toBeGreaterThan(0);
      const line = formatRefusal(r);
      expect(line).not.toContain("\n");
      expect(line).toContain(r.message);
    }
    expect(e.message).toContain("boot refused");
  });

  test("a bad target list is refused even when the environment is otherwise incomplete", async () => {
    const e = await refusedWith({ RUNNER_PROFILE_TARGETS_FILE: `${import.meta.dir}/../fixtures/targets/refuse/comment-key.json` });
    const t = e.refusals.find((r) => r.check === "targets");
    expect(t?.message).toContain("$.comment");
  });

  test("the bootstrap token never appears in a refusal", async () => {
    const e = await refusedWith({ RUNNER_BOOTSTRAP_TOKEN: "rpboot_doNotLeakMe", RUNNER_TUNNEL_URL: "ws://x" });
    expect(e.message).not.toContain("doNotLeakMe");
  });
});
