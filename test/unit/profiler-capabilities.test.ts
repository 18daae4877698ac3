// File capabilities (xattr v1/v2/v3 decoding) and the verdicts on them; the supervisor's own
// status and the exec-grant checks on parsed /proc status text.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, copyFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REQUIRED_CAPS, REQUIRED_MASK } from "../../src/profiler/boot/capability-names.ts";
import { checkCollectorCapabilities, judgeFileCapabilities } from "../../src/profiler/boot/capabilities.ts";
import { checkBoundingSet, checkNoNewPrivs, checkUserNamespace, INITIAL_USER_NS_INODE } from "../../src/profiler/boot/exec-grant.ts";
import { CapabilityXattrError, encodeCapabilityXattr, parseCapabilityXattr } from "../../src/profiler/boot/file-capabilities.ts";
import type { Finding } from "../../src/profiler/boot/finding.ts";
import { parseProcStatus } from "../../src/profiler/boot/proc-status.ts";
import { checkSupervisor } from "../../src/profiler/boot/self-capabilities.ts";

// What `setcap cap_bpf,cap_perfmon,cap_sys_ptrace,cap_dac_read_search,cap_sys_admin+ep` writes (v2).
const SETCAP_V2 = Buffer.from("010000020400280000000000c000000000000000", "hex");

const bit = (name: string) => 1n << BigInt(REQUIRED_CAPS.find((c) => c.name === name)!.bit);
const fails = (fs: Finding[]) => fs.filter((f) => f.status === "fail");

describe("security.capability decoding", () => {
  test("v2 as written by setcap", () => {
    const c = parseCapabilityXattr(SETCAP_V2);
    expect(c).toEqual({ version: 2, effective: true, permitted: REQUIRED_MASK, inheritable: 0n });
  });

  test("v3 carries the rootid", () => {
    const c = parseCapabilityXattr(encodeCapabilityXattr({ version: 3, effective: true, permitted: REQUIRED_MASK, inheritable: 0n, rootid: 100000 }));
    expect(c.version).toBe(3);
    expect(c.rootid).toBe(100000);
    expect(c.permitted).toBe(REQUIRED_MASK);
  });

  test("v1 holds only the low 32 capabilities", () => {
    const c = parseCapabilityXattr(encodeCapabilityXattr({ version: 1, effective: false, permitted: 0xffffffffn, inheritable: 0n }));
    expect(c).toEqual({ version: 1, effective: false, permitted: 0xffffffffn, inheritable: 0n });
  });

  test("round trip v2 equals setcap's bytes", () => {
    expect(Buffer.from(encodeCapabilityXattr({ version: 2, effective: true, permitted: REQUIRED_MASK, inheritable: 0n })).equals(SETCAP_V2)).toBe(true);
  });

  test("malformed xattrs are errors, not crashes", () => {
    expect(() => parseCapabilityXattr(new Uint8Array(2))).toThrow(CapabilityXattrError);
    expect(() => parseCapabilityXattr(SETCAP_V2.subarray(0, 16))).toThrow("must be 20 bytes");
    expect(() => parseCapabilityXattr(Buffer.from("00000009", "hex"))).toThrow("unknown revision");
    expect(() => parseCapabilityXattr(Buffer.from("02000002", "hex"))).toThrow("unknown flags");
  });
});

describe("verdict on the collector's file capabilities", () => {
  const ok = { version: 2 as const, effective: true, permitted: REQUIRED_MASK, inheritable: 0n };

  test("exactly the five +ep passes", () => {
    const f = judgeFileCapabilities("/x/ptop", ok);
    expect(f).toHaveLength(1);
    expect(f[0]!.status).toBe("pass");
  });

  for (const cap of REQUIRED_CAPS) {
    test(`missing ${cap.name} is refused, naming it and its cost`, () => {
      const f = fails(judgeFileCapabilities("/x/ptop", { ...ok, permitted: REQUIRED_MASK & ~bit(cap.name) }));
      expect(f).toHaveLength(1);
      expect(f[0]).toMatchObject({ subject: cap.name, cost: cap.cost });
      expect(f[0]!.message).toContain(cap.name);
    });
  }

  test("the cost of a missing CAP_PERFMON is the cpu axis", () => {
    expect(REQUIRED_CAPS.find((c) => c.name === "CAP_PERFMON")!.cost).toContain("without CAP_PERFMON no CPU sampling: the cpu axis cannot exist");
  });

  test("an extra capability is refused by name", () => {
    const f = fails(judgeFileCapabilities("/x/ptop", { ...ok, permitted: REQUIRED_MASK | (1n << 12n) }));
    expect(f).toHaveLength(1);
    expect(f[0]!.message).toContain("CAP_NET_ADMIN");
  });

  test("inheritable capabilities are refused", () => {
    const f = fails(judgeFileCapabilities("/x/ptop", { ...ok, inheritable: bit("CAP_BPF") }));
    expect(f[0]!.subject).toBe("inheritable");
  });

  test("no effective flag is refused", () => {
    const f = fails(judgeFileCapabilities("/x/ptop", { ...ok, effective: false }));
    expect(f[0]!.subject).toBe("effective flag");
  });

  test("v3 capabilities of another user namespace are refused; rootid 0 is fine", () => {
    expect(fails(judgeFileCapabilities("/x/ptop", { ...ok, version: 3, rootid: 100000 }))).toHaveLength(1);
    expect(fails(judgeFileCapabilities("/x/ptop", { ...ok, version: 3, rootid: 0 }))).toHaveLength(0);
  });

  test("no capabilities at all: every refusal carries a fix for docker, Kubernetes and systemd", () => {
    const f = fails(judgeFileCapabilities("/x/ptop", { ...ok, permitted: 0n, effective: false }));
    expect(f).toHaveLength(6);
    for (const x of f) {
      expect(x.fix).toContain("docker/compose:");
      expect(x.fix).toContain("Kubernetes:");
      expect(x.fix).toContain("systemd:");
    }
  });

  test("a real file without the xattr, and a path that does not exist", () => {
    const dir = mkdtempSync(join(tmpdir(), "caps-"));
    try {
      copyFileSync("/bin/true", join(dir, "ptop"));
      const [f] = checkCollectorCapabilities(join(dir, "ptop"));
      expect(f).toMatchObject({ status: "fail", subject: "file capabilities" });
      const [g] = checkCollectorCapabilities(join(dir, "missing"));
      expect(g).toMatchObject({ status: "fail", subject: "RUNNER_COLLECTOR_PATH" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const STATUS = (over: Record<string, string>) => {
  const fields: Record<string, string> = {
    Name: "runner",
    Uid: "1000\t1000\t1000\t1000",
    CapInh: "0000000000000000",
    CapPrm: "0000000000000000",
    CapEff: "0000000000000000",
    CapBnd: "000001ffffffffff",
    CapAmb: "0000000000000000",
    NoNewPrivs: "0",
    ...over,
  };
  return parseProcStatus(Object.entries(fields).map(([k, v]) => `${k}:\t${v}`).join("\n"));
};

describe("the supervisor and what the kernel will grant on exec", () => {
  test("non-root with no capabilities passes", () => {
    expect(fails(checkSupervisor(STATUS({})))).toEqual([]);
  });

  test("root is refused; so is a non-root process holding capabilities", () => {
    const root = fails(checkSupervisor(STATUS({ Uid: "0\t0\t0\t0", CapEff: "000001ffffffffff", CapPrm: "000001ffffffffff" })));
    expect(root.map((f) => f!.subject)).toEqual(["uid 0", "CapEff"]);
    const capped = fails(checkSupervisor(STATUS({ CapEff: "0000000000200000", CapPrm: "0000000000200000" })));
    expect(capped[0]!.message).toContain("CAP_SYS_ADMIN");
    expect(fails(checkSupervisor(STATUS({ CapAmb: "0000008000000000" })))).toHaveLength(1);
  });

  test("each of the five missing from the bounding set is named", () => {
    for (const cap of REQUIRED_CAPS) {
      const bnd = (0x1ffffffffffn & ~(1n << BigInt(cap.bit))).toString(16).padStart(16, "0");
      const f = fails(checkBoundingSet(STATUS({ CapBnd: bnd })));
      expect(f).toHaveLength(1);
      expect(f[0]).toMatchObject({ subject: cap.name });
      expect(f[0]!.fix).toContain(`--cap-add ${cap.short}`);
    }
  });

  test("NoNewPrivs 1 is refused", () => {
    expect(fails(checkNoNewPrivs(STATUS({})))).toEqual([]);
    const [f] = fails(checkNoNewPrivs(STATUS({ NoNewPrivs: "1" })));
    expect(f!.message).toContain("NoNewPrivs");
    expect(f!.fix).toContain("allowPrivilegeEscalation");
  });

  test("user namespace: the initial inode passes, another one is refused", () => {
    expect(fails(checkUserNamespace(INITIAL_USER_NS_INODE, "0 0 4294967295"))).toEqual([]);
    const [f] = fails(checkUserNamespace(4026532999, "0 100000 65536"));
    expect(f!.message).toContain("user namespace");
    expect(fails(checkUserNamespace(undefined, "         0          0 4294967295\n"))).toEqual([]);
  });

  test("malformed /proc status is an error, not a crash", () => {
    expect(() => parseProcStatus("Name: x")).toThrow();
  });
});
