// Live matrix, part 2: what the kernel will grant on exec and what the supervisor can see —
// a nosuid mount, no_new_privs, a reduced bounding set, a user namespace, a private PID
// namespace, and tracing mounts present or absent (in a private mount namespace, so the host's
// mounts are never touched). Root required.
import { afterAll, beforeAll, expect, test, setDefaultTimeout } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { DEFAULT_PROBES } from "../../src/config/probe-set.ts";
import { BootSandbox, bootLine, boundingSet, FIVE, FIVE_BOUNDING, REFUSED, sh, unprivilegedUserNamespaces } from "./boot-setup.ts";
import { describeUnless, testUnless, whyNot } from "../helpers/skip.ts";
import { ptopSource } from "./ptop-harness.ts";

// Each test starts real processes; a loaded machine (or a cold transpile from sources) is slow.
setDefaultTimeout(60_000);

const live = liveAvailable();
let box: BootSandbox;

describeUnless(whyNot([!live, NOT_ROOT]))("boot: kernel settings (live)", () => {
  beforeAll(() => {
    box = new BootSandbox();
  });
  afterAll(() => box?.cleanup());

  test("collector on a nosuid mount: refused naming nosuid", () => {
    const dir = join(box.root, "nosuid");
    mkdirSync(dir);
    sh(["mount", "-t", "tmpfs", "-o", "nosuid,mode=0755", "tmpfs", dir]);
    const ptop = box.collector("ptop", `${FIVE}+ep`, dir);
    expect(sh(["getcap", ptop])).toContain("cap_bpf");
    const r = box.boot({ env: { RUNNER_COLLECTOR_PATH: ptop } });
    expect(r.code).toBe(REFUSED);
    expect(r.stderr).toContain("mounted nosuid");
    expect(r.stderr.trim().split("\n")).toHaveLength(2);
  });

  test("under setpriv --no-new-privs: refused naming NoNewPrivs", () => {
    const r = box.boot({ setprivExtra: ["--no-new-privs"] });
    expect(r.code).toBe(REFUSED);
    expect(r.stderr).toContain("NoNewPrivs is 1");
    expect(r.stderr).toContain("allowPrivilegeEscalation");
  });

  test("bounding set with NET_ADMIN beyond the five: refused naming it; accepted (with a warning) when the override names it", () => {
    const more = box.boot({ setprivExtra: [boundingSet({ more: ["net_admin"] })] });
    expect(more.code).toBe(REFUSED);
    expect(more.stderr).toContain("beyond the five: CAP_NET_ADMIN");
    const accepted = box.boot({ setprivExtra: [boundingSet({ more: ["net_admin"] })], env: { RUNNER_ALLOW_EXTRA_CAPABILITIES: "NET_ADMIN" } });
    expect(accepted.stderr).toBe("");
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain("accepted by RUNNER_ALLOW_EXTRA_CAPABILITIES=NET_ADMIN");
    // runner doctor says the same.
    const doctor = box.boot({ setprivExtra: [boundingSet({ more: ["net_admin"] })], args: ["doctor"] });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain("FAIL  [bounding-set] the bounding set holds 1 capability beyond the five: CAP_NET_ADMIN");
  });

  test("a full bounding set (what --privileged gives) is refused naming --privileged", () => {
    const last = Number(sh(["cat", "/proc/sys/kernel/cap_last_cap"]).trim());
    const r = box.boot({ setprivExtra: ["--bounding-set=+all"], wrap: [] });
    expect(last).toBeGreaterThan(38);
    expect(r.code).toBe(REFUSED);
    // Every capability this process could have (the kernel's, or all PID 1 holds where a sandbox lacks some).
    expect(r.stderr).toContain("this is a privileged container (--privileged");
  });

  for (const cap of ["perfmon", "bpf", "sys_admin"]) {
    test(`bounding set without ${cap}: refused naming CAP_${cap.toUpperCase()}`, () => {
      const r = box.boot({ setprivExtra: [boundingSet({ without: cap })] });
      expect(r.code).toBe(REFUSED);
      expect(r.stderr).toContain(`CAP_${cap.toUpperCase()} is not in the capability bounding set`);
      expect(r.stderr).toContain(`--cap-add ${cap.toUpperCase()}`);
    });
  }

  test("private PID namespace (unshare --pid --fork --mount-proc): refused with the fix", () => {
    const r = box.boot({ wrap: ["unshare", "--pid", "--fork", "--mount-proc"] });
    expect(r.code).toBe(REFUSED);
    expect(r.stderr).toContain("private PID namespace");
    expect(r.stderr).toContain("--pid=host");
    expect(r.stderr).toContain("hostPID: true");
  });

  testUnless(whyNot([!live, NOT_ROOT], [!unprivilegedUserNamespaces(), "needs unprivileged user namespaces"]))("a user namespace other than the initial one: refused", () => {
    // nobody creates the namespace itself, so it holds no capability in it after exec
    const r = box.boot({ wrap: [], setprivExtra: ["unshare", "--user"] });
    expect(r.code).toBe(REFUSED);
    expect(r.stderr).toContain("user namespace other than the initial one");
  });

  test("tracing mounts present: every probe expected", () => {
    // mount(8) refuses to mount what is already mounted there (another suite may have done so)
    const ensure = (fs: string, at: string) => `{ grep -q ' ${at} ${fs} ' /proc/self/mounts || mount -t ${fs} nodev ${at}; }`;
    const script = `${ensure("tracefs", "/sys/kernel/tracing")} && ${ensure("debugfs", "/sys/kernel/debug")} && exec "$@"`;
    const r = box.boot({ wrap: ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh"] });
    expect(r.code).toBe(0);
    expect(bootLine(r.stdout)).toMatchObject({ probes: [...DEFAULT_PROBES], instrumentation: `fully instrumented (${DEFAULT_PROBES.length} probes)` });
  });

  test("tracing mounts absent: boots, and the boot line says 1 of N probes", () => {
    // -R: debugfs may carry the tracing automount beneath it; the loop: mounts may be stacked
    const script = "while umount -R /sys/kernel/tracing 2>/dev/null; do :; done; while umount -R /sys/kernel/debug 2>/dev/null; do :; done; exec \"$@\"";
    const r = box.boot({ wrap: ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh"] });
    expect(r.code).toBe(0);
    const line = bootLine(r.stdout);
    expect(line.probes).toEqual(["cpu"]);
    const tracepoints = DEFAULT_PROBES.filter((p) => p !== "cpu");
    expect(line.instrumentation).toBe(`1 of ${DEFAULT_PROBES.length} probes: ${tracepoints.join(", ")} need /sys/kernel/tracing`);
    expect(r.stdout).toContain("tracefs is not mounted at /sys/kernel/tracing");
  });

  // The sandbox's usual collector is a setcap'd copy of true; these two ask the real ptop.
  test("the collector is asked about the kernel: this one has what ptop needs", () => {
    const ptop = box.collector("ptop-kernel", `${FIVE}+ep`, box.root, ptopSource());
    const r = box.boot({ args: ["doctor", "--json"], env: { RUNNER_COLLECTOR_PATH: ptop } });
    const kernel = (JSON.parse(r.stdout) as { findings: { check: string; status: string; subject: string; message: string }[] }).findings.filter((f) => f.check === "kernel");
    expect(kernel).toEqual([{ check: "kernel", status: "pass", subject: "features", message: expect.stringMatching(/^this kernel \(\S+\) has every feature ptop needs$/) }]);
  });

  test("a kernel without BTF (hidden in a private mount namespace): refused at boot naming it, not at each capture", () => {
    const script = "mount -t tmpfs none /sys/kernel/btf && exec \"$@\"";
    const ptop = box.collector("ptop-kernel-nobtf", `${FIVE}+ep`, box.root, ptopSource());
    const r = box.boot({ wrap: ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh"], env: { RUNNER_COLLECTOR_PATH: ptop } });
    expect(r.code).toBe(REFUSED);
    const line = r.stderr.split("\n").find((l) => l.startsWith("refused [kernel]"));
    expect(line).toMatch(/^refused \[kernel\] this kernel \(\S+\) exposes no BTF at \/sys\/kernel\/btf\/vmlinux .* \| cost: no capture can measure anything on this node \| fix: docker\/compose: /);
  });

  test("a second replica on the same identity volume is refused while the first runs", async () => {
    // The first holds the volume through a real `runner profiler` whose enrolment never completes:
    // the enrol address accepts connections and never answers, so it keeps running, lock held.
    const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const url = `127.0.0.1:${silent.port}`;
    const first = Bun.spawn(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", FIVE_BOUNDING, ...(await import("../helpers/runner-bin.ts")).runnerCommand(), "profiler"], {
      env: box.env({ RUNNER_ENROLL_URL: `https://${url}/api/profiler/enroll`, RUNNER_TUNNEL_URL: `wss://${url}/tunnel` }),
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const reader = first.stdout.getReader();
      let seen = "";
      while (!seen.includes("profiler booted")) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += new TextDecoder().decode(value);
      }
      reader.releaseLock();
      expect(seen).toContain("profiler booted");
      const r = box.boot({ env: { RUNNER_INSTANCE_ID: "live-1" } });
      expect(r.code).toBe(REFUSED);
      expect(r.stderr).toContain("is in use by PID");
      expect(r.stderr).toContain("one volume per replica");
      expect(first.exitCode).toBeNull(); // the holder was alive throughout
    } finally {
      first.kill();
      await first.exited;
      silent.stop(true);
    }
    expect(box.boot().code).toBe(0);
  });
});
