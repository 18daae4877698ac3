// PID namespace visibility, tracing mounts and AppArmor, on parsed inputs and on this host.
import { describe, expect, test } from "bun:test";
import { checkAppArmor } from "../../src/profiler/boot/apparmor.ts";
import { parseMountinfo, fsTypeAt, mountOf } from "../../src/profiler/boot/mountinfo.ts";
import { checkPidNamespace, INITIAL_PID_NS_INODE, readProcessTree, strangers } from "../../src/profiler/boot/pid-namespace.ts";
import { checkTracing, expectedInstrumentation } from "../../src/profiler/boot/tracing.ts";

const MOUNTS = `22 27 0:21 / /proc rw,relatime - proc proc rw
23 27 0:22 / /sys rw,relatime - sysfs sysfs rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
50 23 0:12 / /sys/kernel/tracing rw,nosuid,nodev,noexec,relatime - tracefs nodev rw
51 23 0:7 / /sys/kernel/debug rw,nosuid,nodev,noexec,relatime - debugfs nodev rw
52 27 0:40 / /mnt/with\\040space rw - tmpfs tmpfs rw`;

describe("PID namespace", () => {
  test("the host namespace passes by its inode", () => {
    expect(checkPidNamespace(INITIAL_PID_NS_INODE, new Map(), 1)[0]!.status).toBe("pass");
  });

  test("only self, an entrypoint parent and children visible: refused with the fix", () => {
    // 1 = entrypoint, 7 = us, 9 = our child, 12 = grandchild
    const tree = new Map([[1, 0], [7, 1], [9, 7], [12, 9]]);
    expect(strangers(tree, 7)).toEqual([]);
    const [f] = checkPidNamespace(4026532000, tree, 7);
    expect(f).toMatchObject({ status: "fail", subject: "PID namespace" });
    expect(f!.fix).toContain("--pid=host");
    expect(f!.fix).toContain("hostPID: true");
    expect(f!.fix).toContain("shareProcessNamespace");
  });

  test("a shared (pod) namespace with other processes is a warning", () => {
    const tree = new Map([[1, 0], [7, 1], [20, 1]]);
    expect(strangers(tree, 7)).toEqual([20]);
    expect(checkPidNamespace(4026532000, tree, 7)[0]!.status).toBe("warn");
  });

  test("ppid cycles do not hang", () => {
    expect(strangers(new Map([[5, 6], [6, 5], [7, 1]]), 7)).toEqual([5, 6]);
  });

  test("this host's /proc parses", () => {
    const tree = readProcessTree();
    expect(tree.get(process.pid)).toBe(process.ppid);
  });
});

describe("tracing mounts", () => {
  test("mountinfo parsing, escapes included", () => {
    const m = parseMountinfo(MOUNTS);
    expect(fsTypeAt(m, "/sys/kernel/tracing")).toBe("tracefs");
    expect(fsTypeAt(m, "/mnt/with space")).toBe("tmpfs");
  });

  test("both mounted: fully instrumented", () => {
    const t = checkTracing(parseMountinfo(MOUNTS));
    expect(t.probesExpected).toEqual(["cpu", "offcpu", "syscalls", "locks"]);
    expect(t.probesUnavailable).toEqual([]);
    expect(expectedInstrumentation(t.probesExpected, t.probesUnavailable)).toBe("fully instrumented (4 probes)");
  });

  test("neither mounted: 1 of 4 probes, with the reason", () => {
    const t = checkTracing(parseMountinfo(MOUNTS.split("\n").slice(0, 3).join("\n")));
    expect(t.probesExpected).toEqual(["cpu"]);
    expect(t.probesUnavailable.map((u) => u.probe)).toEqual(["offcpu", "syscalls", "locks"]);
    expect(expectedInstrumentation(t.probesExpected, t.probesUnavailable)).toBe("1 of 4 probes: offcpu, syscalls, locks need /sys/kernel/tracing");
    expect(t.findings.every((f) => f.status === "warn")).toBe(true);
  });

  test("debugfs alone still gives tracepoints (libbpf falls back to debug/tracing)", () => {
    const t = checkTracing(parseMountinfo(MOUNTS.split("\n").filter((l) => !l.includes("tracefs")).join("\n")));
    expect(t.probesExpected).toEqual(["cpu", "offcpu", "syscalls", "locks"]);
    expect(t.findings.find((f) => f.subject === "/sys/kernel/tracing")!.status).toBe("warn");
  });

  test("the mount holding a path: longest prefix, later mounts first, no false prefix", () => {
    const m = parseMountinfo(`${MOUNTS}\n61 27 0:51 / /opt/ptop rw,nosuid - tmpfs tmpfs rw\n62 27 0:52 / /opt/ptop rw - tmpfs tmpfs rw`);
    expect(mountOf(m, "/opt/ptop/ptop")!.options).toEqual(["rw"]);
    expect(mountOf(m, "/opt/ptopx/ptop")!.mountPoint).toBe("/");
    expect(mountOf(m, "/sys/kernel/tracing/events")!.fsType).toBe("tracefs");
  });

  test("a later mount over the same point wins", () => {
    const m = parseMountinfo(`${MOUNTS}\n60 23 0:50 / /sys/kernel/tracing rw - tmpfs tmpfs rw`);
    expect(fsTypeAt(m, "/sys/kernel/tracing")).toBe("tmpfs");
  });
});

describe("AppArmor", () => {
  test("not enforced by the host: pass", () => expect(checkAppArmor({ enabled: false })[0]!.status).toBe("pass"));
  test("unconfined on an enforcing host: refused", () => {
    const [f] = checkAppArmor({ enabled: true, label: "unconfined" });
    expect(f).toMatchObject({ status: "fail", subject: "AppArmor profile" });
    expect(f!.fix).toContain("apparmor=runner-profiler");
  });
  test("the default container profile: warned with what it blocks", () => {
    const [f] = checkAppArmor({ enabled: true, label: "docker-default (enforce)" });
    expect(f!.status).toBe("warn");
    expect(f!.message).toContain("/proc/PID/ns/*");
    expect(checkAppArmor({ enabled: true, label: "cri-containerd.apparmor.d (enforce)" })[0]!.status).toBe("warn");
  });
  test("the Profiler's own profile: pass", () => expect(checkAppArmor({ enabled: true, label: "runner-profiler (enforce)" })[0]!.status).toBe("pass"));
});
