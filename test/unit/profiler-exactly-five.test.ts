// Exactly five: the bounding set holds the five and nothing else; more is refused naming each
// extra, a full set is named --privileged, and RUNNER_ALLOW_EXTRA_CAPABILITIES accepts named extras.
import { describe, expect, test } from "bun:test";
import { REQUIRED_MASK } from "../../src/profiler/boot/capability-names.ts";
import { checkExactlyFive, parseExtraCapsOverride } from "../../src/profiler/boot/exactly-five.ts";

const NET_ADMIN = 1n << 12n;
const SYS_MODULE = 1n << 16n;
const FULL_40 = (1n << 41n) - 1n; // cap_last_cap 40 (CAP_CHECKPOINT_RESTORE)

describe("exactly five in the bounding set", () => {
  test("the five alone pass", () => {
    const [f] = checkExactlyFive(REQUIRED_MASK, undefined, 40, FULL_40);
    expect(f!.status).toBe("pass");
  });

  test("one more (--cap-add NET_ADMIN) is refused, naming it", () => {
    const f = checkExactlyFive(REQUIRED_MASK | NET_ADMIN, undefined, 40, FULL_40);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ status: "fail", check: "bounding-set", subject: "CAP_NET_ADMIN" });
    expect(f[0]!.message).toContain("beyond the five: CAP_NET_ADMIN");
    expect(f[0]!.message).toContain("RUNNER_ALLOW_EXTRA_CAPABILITIES");
    expect(f[0]!.fix).toContain("--cap-drop ALL");
  });

  test("every capability is named --privileged", () => {
    const [f] = checkExactlyFive(FULL_40, undefined, 40);
    expect(f).toMatchObject({ status: "fail", subject: "--privileged" });
    expect(f!.message).toContain("--privileged");
    expect(f!.message).toContain("privileged: true");
  });

  test("a set one capability short of the kernel's is --privileged when PID 1 holds no more; otherwise its extras are listed", () => {
    const short = FULL_40 & ~(1n << 24n);
    const [priv] = checkExactlyFive(short, undefined, 40, short);
    expect(priv).toMatchObject({ status: "fail", subject: "--privileged" });
    expect(priv!.message).toContain("every capability that PID 1 holds");
    const [listed] = checkExactlyFive(short, undefined, 40, FULL_40);
    expect(listed!.message).not.toContain("--privileged");
    expect(listed!.message).toContain("CAP_SYS_MODULE");
    // PID 1 itself confined to the five (a container's own init) says nothing about privilege.
    expect(checkExactlyFive(REQUIRED_MASK | NET_ADMIN, undefined, 40, REQUIRED_MASK)[0]!.subject).toBe("CAP_NET_ADMIN");
  });

  test("the override accepts exactly the extras it names, and warns", () => {
    const ok = checkExactlyFive(REQUIRED_MASK | NET_ADMIN, "NET_ADMIN", 40);
    expect(ok).toHaveLength(1);
    expect(ok[0]).toMatchObject({ status: "warn", subject: "RUNNER_ALLOW_EXTRA_CAPABILITIES" });
    expect(ok[0]!.message).toContain("CAP_NET_ADMIN");
    const partial = checkExactlyFive(REQUIRED_MASK | NET_ADMIN | SYS_MODULE, "cap_net_admin", 40);
    expect(partial[0]).toMatchObject({ status: "fail", subject: "CAP_SYS_MODULE" });
    expect(checkExactlyFive(FULL_40, "ALL", 40)[0]!.status).toBe("warn");
  });

  test("an override naming no capability, or a wrong one, is refused", () => {
    expect(checkExactlyFive(REQUIRED_MASK | NET_ADMIN, "CAP_NET_ADMINN", 40)[0]).toMatchObject({ status: "fail", check: "env" });
    expect(parseExtraCapsOverride(" , ")).toHaveProperty("error");
    expect(parseExtraCapsOverride("NET_ADMIN,cap_sys_module")).toEqual({ mask: NET_ADMIN | SYS_MODULE, all: false });
  });
});
