// Who may execute a ptop that carries file capabilities: the Profiler's user and group only.
import { describe, expect, test } from "bun:test";
import { REQUIRED_MASK } from "../../src/profiler/boot/capability-names.ts";
import { checkCollectorAccess } from "../../src/profiler/boot/collector-access.ts";

const five = { version: 2 as const, effective: true, permitted: REQUIRED_MASK, inheritable: 0n };

describe("collector access", () => {
  test("0750 (group only) passes", () => {
    const [f] = checkCollectorAccess("/opt/runner/ptop", 0o100750, five);
    expect(f).toMatchObject({ check: "collector-access", status: "pass" });
  });

  for (const mode of [0o100755, 0o100751, 0o100711, 0o104755]) {
    test(`mode ${mode.toString(8)} (others may execute) fails with the fix and the cost`, () => {
      const [f] = checkCollectorAccess("/opt/runner/ptop", mode, five);
      expect(f).toMatchObject({ check: "collector-access", status: "fail", subject: "mode" });
      expect(f!.message).toContain("every user may execute it");
      expect(f!.fix).toContain("chmod 0750 /opt/runner/ptop");
      expect(f!.cost).toContain("any local user can measure any process");
    });
  }

  test("a binary without capabilities is no concern of this check", () => {
    expect(checkCollectorAccess("/opt/runner/ptop", 0o100755, { ...five, permitted: 0n })).toEqual([]);
  });
});
