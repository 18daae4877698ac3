// ptop's minimum kernel (src/features.c): on a kernel without a feature it needs, ptop refuses at
// start (exit 5) naming the feature, the kernel that brought it and the cost, instead of a
// libbpf/verifier failure at load. An older kernel is shown to ptop by a private mount namespace:
// /proc/sys/kernel/cap_last_cap read as 38 (a kernel before 5.8 has no CAP_BPF), or an empty
// /sys/kernel/btf (a kernel without BTF). test/kernels runs the real 6.1 kernels.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import { NOBODY, buildHotloop, cleanup, parseStream, setcapPtop, sharedTempDir, sleep, spawnAsNobody, writeTargets } from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();

describeUnless(whyNot([!live, NOT_ROOT]))("ptop kernel features (live)", () => {
  let dir = "";
  let ptop = "";
  let targets = "";
  let work: ReturnType<typeof spawnAsNobody> | undefined;
  beforeAll(async () => {
    dir = sharedTempDir("ptop-features-");
    ptop = setcapPtop(dir);
    targets = writeTargets(dir, { targets: [{ workload: "hotloop" }] });
    work = spawnAsNobody([buildHotloop(dir), "1", "60"]);
    await sleep(300);
  }, 30_000);
  afterAll(async () => {
    work?.kill("SIGTERM");
    await work?.exited;
    cleanup(dir);
  });

  /** ptop as nobody in a private mount namespace prepared by `setup` (run as root in it). */
  function ptopIn(setup: string) {
    const cmd = `${setup} && exec ${[...NOBODY, ptop, "--targets", targets, "--workload", "hotloop", "--duration", "1", "--probes", "cpu"].join(" ")}`;
    const r = Bun.spawnSync(["unshare", "--mount", "--propagation", "private", "sh", "-c", cmd], { stdout: "pipe", stderr: "pipe" });
    return { exitCode: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  }

  test("control: in a private mount namespace with nothing hidden, ptop measures", () => {
    const r = ptopIn("true");
    expect({ exit: r.exitCode, stderr: r.stderr }).toEqual({ exit: PTOP_EXIT.ok, stderr: "" });
    expect(parseStream(r.stdout).at(-1)?.type).toBe("summary");
  }, 30_000);

  test("a kernel before 5.8 (no CAP_BPF): refused naming CAP_BPF, Linux 5.8 and the cost", () => {
    const fake = join(dir, "cap_last_cap");
    writeFileSync(fake, "38\n");
    chmodSync(fake, 0o644);
    const r = ptopIn(`mount --bind ${fake} /proc/sys/kernel/cap_last_cap`);
    expect(r.exitCode).toBe(PTOP_EXIT.no_privilege);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trim().split("\n");
    expect(lines.length).toBe(1);
    expect(lines[0]).toContain("no CAP_BPF and CAP_PERFMON (Linux 5.8)");
    expect(lines[0]).toContain("nothing can be measured on this kernel");
  }, 30_000);

  test("a kernel without BTF: refused naming /sys/kernel/btf/vmlinux and CO-RE, not a load failure", () => {
    const r = ptopIn("mount -t tmpfs none /sys/kernel/btf");
    expect(r.exitCode).toBe(PTOP_EXIT.no_privilege);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trim().split("\n");
    expect(lines.length).toBe(1);
    expect(lines[0]).toContain("exposes no BTF at /sys/kernel/btf/vmlinux");
    expect(lines[0]).toContain("CO-RE");
    expect(lines[0]).not.toContain("loading the BPF programs failed");
  }, 30_000);
});
