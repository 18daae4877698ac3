// The Profiler image, built for real with Debian's container tooling (image/build.sh: debootstrap
// base, buildah, a throwaway release key), then: the security.capability xattr of ptop in the
// final image (and on nothing else), the container run as the reference setup runs it (host PID,
// exactly the five capabilities, tracing mounts, identity volume, read-only target list, token
// from a secret file, 512m) up to the Profiler's boot line, and a tampered ptop refused at boot.
//
// Needs root, buildah, podman, runc, debootstrap (+ libbpf/libelf for arm64 for the cross ptop):
// several minutes, so it runs only where those are installed, and must run when
// RUNNER_REQUIRE_IMAGE=1 (CI, once .ci/run installs them).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REQUIRED_CAPS } from "../../src/profiler/boot/capability-names.ts";
import { liveAvailable, REPO_ROOT } from "../helpers/runner-bin.ts";

const TOOLS = ["buildah", "podman", "runc", "debootstrap", "getcap", "setcap", "qemu-aarch64-static"];
const missing = TOOLS.filter((t) => Bun.which(t, { PATH: `${process.env.PATH}:/usr/sbin:/sbin` }) === null);
if (process.env.RUNNER_REQUIRE_IMAGE === "1" && missing.length > 0) throw new Error(`RUNNER_REQUIRE_IMAGE=1 but missing: ${missing.join(", ")}`);
const enabled = liveAvailable() && missing.length === 0;

const NONROOT = 65532;
const TAG = `localhost/runner-profiler-test:${process.pid}`;
const STORAGE = ["--storage-driver", "vfs"];
// runc with cgroupfs: works with the hybrid cgroup layout of CI machines (crun refuses it); the
// rlimits are lowered explicitly because the sandbox may lack CAP_SYS_RESOURCE to raise them.
const PODMAN_RUN = ["podman", ...STORAGE, "--runtime", "runc", "--cgroup-manager", "cgroupfs", "run", "--rm", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096"];

function sh(argv: string[], opts: { env?: Record<string, string>; timeoutMs?: number } = {}): { code: number; stdout: string; stderr: string } {
  const r = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...opts.env }, timeout: opts.timeoutMs ?? 120_000 });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

function must(argv: string[], opts?: { env?: Record<string, string>; timeoutMs?: number }): string {
  const r = sh(argv, opts);
  if (r.code !== 0) throw new Error(`${argv.join(" ")} exited ${r.code}: ${r.stderr.slice(-2000)}`);
  return r.stdout;
}

/** Mounts fstype at path unless it is there; returns whether it did (so it can be undone). */
function ensureMounted(path: string, fstype: string): boolean {
  const mounts = must(["cat", "/proc/self/mounts"]);
  if (mounts.split("\n").some((l) => l.split(" ")[1] === path && l.split(" ")[2] === fstype)) return false;
  must(["mount", "-t", fstype, "nodev", path]);
  return true;
}

describe.skipIf(!enabled)("Profiler image (buildah, debootstrap base)", () => {
  let work = "";
  let amd64 = "";
  let tampered = "";
  let ctr = "";
  const mountedHere: string[] = [];

  beforeAll(() => {
    work = mkdtempSync("/var/tmp/image-live-");
    must([join(REPO_ROOT, "image/build.sh"), "--dev-key", "--images", "amd64", "--out", join(work, "out"), "--tag", TAG], { timeoutMs: 20 * 60_000 });
    amd64 = `${TAG}-amd64`;
    // Debug first: mounting debugfs can automount tracefs beneath it, not at /sys/kernel/tracing.
    if (ensureMounted("/sys/kernel/debug", "debugfs")) mountedHere.push("/sys/kernel/debug");
    if (ensureMounted("/sys/kernel/tracing", "tracefs")) mountedHere.push("/sys/kernel/tracing");
  }, 25 * 60_000);

  afterAll(() => {
    if (ctr) sh(["buildah", ...STORAGE, "rm", ctr]);
    for (const img of [tampered, amd64]) if (img) sh(["buildah", ...STORAGE, "rmi", "-f", img]);
    sh(["buildah", ...STORAGE, "manifest", "rm", TAG]);
    if (work) rmSync(work, { recursive: true, force: true });
    for (const m of mountedHere.reverse()) sh(["umount", m]); // leave the host as we found it
  }, 180_000);

  test("both architectures' binaries were built and are what `file` says", () => {
    for (const [arch, machine] of [["amd64", "x86-64"], ["arm64", "ARM aarch64"]] as const) {
      for (const bin of ["runner", "ptop"]) {
        expect(must(["file", "-b", join(work, "out/context", arch, bin)])).toContain(machine);
      }
    }
  });

  test("the signed manifest covers runner and ptop of both architectures and verifies offline", () => {
    const out = join(work, "out");
    const ctx = join(out, "context");
    const bins = ["amd64", "arm64"].flatMap((a) => ["runner", "ptop"].map((b) => `${b}/${a}=${join(ctx, a, b)}`));
    const r = sh([process.execPath, join(REPO_ROOT, "image/sign-manifest.ts"), "verify", "--pub", join(out, "dev-key/release-key.pub.pem"), ctx, ...bins]);
    expect(r.stderr).toBe("");
    expect(r.stdout.match(/^OK /gm)).toHaveLength(4);
    expect(r.code).toBe(0);
  });

  test("arm64 ptop executes under qemu-user-static", () => {
    // (The arm64 runner is checked by `file` above; image/build.sh runs each image's own runner
    // when it builds that architecture's image. Bun does not start under qemu with the cross sysroot.)
    const ptop = sh(["qemu-aarch64-static", "-L", "/usr/aarch64-linux-gnu", join(work, "out/context/arm64/ptop"), "--help"]);
    expect(ptop.code).toBe(2); // its usage, printed by arm64 code
    expect(ptop.stderr + ptop.stdout).toContain("usage: ptop --targets FILE");
  });

  // getcap reads the security.capability xattr itself, from the image's final layer as stored.
  test("in the final image only ptop carries file capabilities: exactly the five, effective", () => {
    ctr = must(["buildah", ...STORAGE, "from", amd64]).trim();
    const mnt = must(["buildah", ...STORAGE, "mount", ctr]).trim();
    const lines = must(["getcap", "-r", mnt]).trim().split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    const [file, caps] = lines[0]!.split(/\s+/);
    expect(file).toBe(`${mnt}/opt/runner/ptop`);
    const [list, flags] = caps!.split("=");
    expect(flags).toBe("ep");
    expect(list!.split(",").sort()).toEqual(REQUIRED_CAPS.map((c) => c.name.toLowerCase()).sort());
    // Executable by the Profiler's group only: whoever runs ptop may measure any process.
    const st = statSync(`${mnt}/opt/runner/ptop`);
    expect({ mode: (st.mode & 0o7777).toString(8), uid: st.uid, gid: st.gid }).toEqual({ mode: "750", uid: 0, gid: NONROOT });
    must(["buildah", ...STORAGE, "umount", ctr]);
  }, 120_000); // buildah from + mount of the vfs image takes > 5 s on a loaded machine

  function runProfiler(image: string): { code: number; stdout: string; stderr: string } {
    const dir = mkdtempSync(join(work, "run-"));
    chmodSync(dir, 0o755);
    const identity = join(dir, "identity");
    mkdirSync(identity, { mode: 0o700 });
    chownSync(identity, NONROOT, NONROOT);
    const targets = join(dir, "targets.json");
    writeFileSync(targets, JSON.stringify({ targets: [{ workload: "api" }] }), { mode: 0o644 });
    const token = join(dir, "bootstrap-token");
    writeFileSync(token, "rpboot_imagelivetest", { mode: 0o400 });
    chownSync(token, NONROOT, NONROOT);
    return sh(
      [
        ...PODMAN_RUN,
        "--user", `${NONROOT}:${NONROOT}`,
        "--cap-drop", "ALL",
        ...REQUIRED_CAPS.flatMap((c) => ["--cap-add", c.short]),
        "--pid", "host",
        "--memory", "512m",
        "--volume", "/sys/kernel/tracing:/sys/kernel/tracing",
        "--volume", "/sys/kernel/debug:/sys/kernel/debug",
        "--volume", `${identity}:/var/lib/runner`,
        "--volume", `${targets}:/etc/runner/targets.json:ro`,
        "--volume", `${token}:/run/secrets/runner_bootstrap_token:ro`,
        "--env", "RUNNER_TENANT=acme",
        "--env", "RUNNER_INSTANCE_ID=image-live",
        "--env", "RUNNER_TUNNEL_URL=wss://127.0.0.1:8443/tunnel",
        "--env", "RUNNER_ENROLL_URL=https://127.0.0.1:8443/api/profiler/enroll",
        "--env", "RUNNER_IDENTITY_DIR=/var/lib/runner",
        "--env", "RUNNER_PROFILE_TARGETS_FILE=/etc/runner/targets.json",
        "--env", "RUNNER_BOOTSTRAP_TOKEN_FILE=/run/secrets/runner_bootstrap_token",
        image,
        "profiler", "--boot-only",
      ],
      { timeoutMs: 180_000 },
    );
  }

  test("run like the reference setup, the signed image boots and logs the Profiler's boot line", () => {
    const r = runProfiler(amd64);
    expect(r.stderr).not.toContain("boot refused");
    expect(r.code).toBe(0);
    const line = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((o) => o.msg === "profiler booted");
    expect(line).toMatchObject({ class: "profiler", targets: 1, arch: "amd64", tenant: "acme", instance: "image-live" });
    // Signed build: no UNSIGNED warning was logged.
    expect(r.stdout).not.toContain("UNSIGNED");
  }, 200_000);

  test("inside the container, ptop (file capabilities, CapEff 0 parent) measures a host process", () => {
    // A known workload on the host, run by another user: `yes` writes as fast as it can.
    const spin = join(work, "imgspin");
    must(["cp", "/usr/bin/yes", spin]);
    chmodSync(spin, 0o755);
    chmodSync(work, 0o755);
    const proc = Bun.spawn(["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", spin], { stdout: "ignore" });
    try {
      const targets = join(work, "measure-targets.json");
      writeFileSync(targets, JSON.stringify({ targets: [{ workload: "imgspin" }] }), { mode: 0o644 });
      const script = [
        "grep CapEff /proc/self/status",
        "/opt/runner/ptop --targets /etc/runner/targets.json --workload imgspin --duration 3 --warmup 0 --probes cpu > /tmp/stream",
        "echo ptop-exit=$?",
        "/opt/runner/runner witness fold --axis cpu /tmp/stream",
      ].join("; ");
      const r = sh([
        ...PODMAN_RUN,
        "--user", `${NONROOT}:${NONROOT}`, "--cap-drop", "ALL", ...REQUIRED_CAPS.flatMap((c) => ["--cap-add", c.short]),
        "--pid", "host", "--memory", "512m",
        "--volume", "/sys/kernel/tracing:/sys/kernel/tracing", "--volume", "/sys/kernel/debug:/sys/kernel/debug",
        "--volume", `${targets}:/etc/runner/targets.json:ro`,
        // As the entrypoint does: clear ambient/inheritable, so the shell (the supervisor's
        // stand-in) holds nothing and ptop gets the five from its file capabilities alone.
        "--entrypoint", "/usr/bin/setpriv", amd64,
        "--ambient-caps=-all", "--inh-caps=-all", "--", "/bin/sh", "-c", script,
      ], { timeoutMs: 180_000 });
      expect(r.stdout).toContain("CapEff:\t0000000000000000"); // the parent holds nothing
      expect(r.stdout).toContain("ptop-exit=0");
      const folded = r.stdout.split("\n").filter((l) => /^\S.* \d+$/.test(l) && !l.startsWith("CapEff") && !l.startsWith("ptop-exit"));
      const total = folded.reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
      expect(total).toBeGreaterThan(10);
      expect(folded.some((l) => /write/.test(l))).toBe(true);
    } finally {
      proc.kill();
    }
  }, 200_000);

  test("a tampered ptop in the image (same file capabilities) makes the boot fail, naming ptop", () => {
    const c = must(["buildah", ...STORAGE, "from", amd64]).trim();
    try {
      const caps = `${REQUIRED_CAPS.map((x) => x.name.toLowerCase()).join(",")}+ep`;
      must(["buildah", ...STORAGE, "run", "--isolation", "chroot", "--user", "0:0", c, "--", "sh", "-c", `printf '\\220' >> /opt/runner/ptop && setcap ${caps} /opt/runner/ptop`]);
      tampered = `${TAG}-tampered`;
      must(["buildah", ...STORAGE, "commit", c, tampered], { timeoutMs: 300_000 });
    } finally {
      sh(["buildah", ...STORAGE, "rm", c]);
    }
    const r = runProfiler(tampered);
    expect(r.code).toBe(78);
    expect(r.stderr).toContain("ptop at /opt/runner/ptop is not the signed release binary");
    expect(r.stderr).not.toContain("[supervisor] runner"); // runner itself is intact
  }, 400_000);
});
