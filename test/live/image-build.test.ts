// The Profiler image as users install it, built for real with Debian's container tooling
// (image/build.sh: debootstrap base, buildah, a throwaway release key), pushed to a registry on
// 127.0.0.1 (Debian's docker-registry) and signed there (manifest list and platform manifest, the
// cosign/Sigstore key-based format, the release key). Then: the signature verifies with
// runner-release.pub, in our tooling and in the standard clients (cosign; skopeo with sigstore under
// a sigstoreSigned policy); a tampered image under the same tag (unsigned, carrying a replayed
// signature, signed by another key) is refused by all three; a `cosign sign` with the cosign export
// of the release key verifies in our tooling; what Debian 12's podman does with a sigstoreSigned
// policy; the verified digest pulled and booted as the reference setup
// runs it; exactly five (more, and --privileged, refused); the base stripped (no setuid/setgid
// file, no shell, interpreter or package manager); the HEALTHCHECK kept; a tampered ptop refused
// at boot unless the operator mounts the opt-out; a refused boot that does not restart-loop; and
// the Kubernetes pod spec started twice in a row under `podman kube play`.
//
// Needs root, buildah, podman, runc, skopeo, debootstrap, docker-registry, catatonit (+ the arm64
// cross toolchain for ptop) and the standard Sigstore clients (./sigstore-clients.ts): several
// minutes, so it runs only where those are installed, and must run when RUNNER_REQUIRE_IMAGE=1 (CI).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REQUIRED_CAPS } from "../../src/profiler/boot/capability-names.ts";
import { liveAvailable, NOT_ROOT, REPO_ROOT, runnerCommand as runnerCommandLine } from "../helpers/runner-bin.ts";
import { describeUnless, testUnless, whyNot } from "../helpers/skip.ts";
import { cosignSign, cosignVerify, missingSigstoreTools, SIGSTORE_TOOLS, skopeoCopyUnderPolicy, writeSigstorePolicy } from "./sigstore-clients.ts";

const TOOLS = ["buildah", "podman", "runc", "skopeo", "debootstrap", "docker-registry", "catatonit", "getcap", "setcap", "qemu-aarch64-static"];
const missing = TOOLS.filter((t) => Bun.which(t, { PATH: `${process.env.PATH}:/usr/sbin:/sbin` }) === null);
if (process.env.RUNNER_REQUIRE_IMAGE === "1" && missing.length > 0) throw new Error(`RUNNER_REQUIRE_IMAGE=1 but missing: ${missing.join(", ")}`);
if (process.env.RUNNER_REQUIRE_IMAGE === "1" && missingSigstoreTools.length > 0) throw new Error(`RUNNER_REQUIRE_IMAGE=1 but missing: ${missingSigstoreTools.join(", ")} (.ci/trixie-tools.sh)`);
const whyNotRun = whyNot([!liveAvailable(), NOT_ROOT], [missing.length > 0, `needs ${missing.join(", ")}`]);
const standardClients = testUnless(whyNot([missingSigstoreTools.length > 0, `needs cosign and a sigstore-enabled skopeo in ${SIGSTORE_TOOLS} (.ci/trixie-tools.sh)`]));

const NONROOT = 65532;
const TAG = `localhost/runner-profiler-test:${process.pid}`;
const STORAGE = ["--storage-driver", "vfs"];
// runc with cgroupfs: works with the hybrid cgroup layout of CI machines (crun refuses it); the
// rlimits are lowered explicitly because the sandbox may lack CAP_SYS_RESOURCE to raise them.
const PODMAN = ["podman", ...STORAGE, "--runtime", "runc", "--cgroup-manager", "cgroupfs"];
const PODMAN_RUN = [...PODMAN, "run", "--rm", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096"];
// What must not be in the image: shells, interpreters, package managers (the Profiler runs none).
const ABSENT = ["sh", "bash", "dash", "rbash", "zsh", "ksh", "busybox", "perl", "python3", "apt", "apt-get", "apt-cache", "dpkg", "dpkg-deb"];

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

/** A free TCP port on 127.0.0.1. */
function freePort(): number {
  const srv = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = srv.port;
  srv.stop(true);
  return port;
}

describeUnless(whyNotRun)("Profiler image (buildah, debootstrap base, registry on 127.0.0.1)", () => {
  let work = "";
  let out = "";
  let amd64 = ""; // the local per-arch image build.sh made
  let pulled = ""; // the verified digest, pulled back from the registry
  let ref = ""; // REGISTRY/REPO:TAG as published
  let repo = "";
  let listDigest = ""; // the published manifest list and its platform manifest, as signed
  let platformDigest = "";
  let registryPid = 0;
  const cleanupImages: string[] = [];
  const mountedHere: string[] = [];
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    work = mkdtempSync("/var/tmp/image-live-");
    chmodSync(work, 0o755);
    out = join(work, "out");
    const port = freePort();
    const config = join(work, "registry.yml");
    writeFileSync(config, `version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: ${join(work, "registry")}\nhttp:\n  addr: 127.0.0.1:${port}\n`);
    // In its own session: bun test ends the child processes a test leaves running.
    const pidFile = join(work, "registry.pid");
    must(["setsid", "-f", "sh", "-c", `echo $$ > ${pidFile}; exec docker-registry serve ${config} >${join(work, "registry.log")} 2>&1`]);
    for (let i = 0; i < 50 && !registryPid; i++) {
      await Bun.sleep(100);
      registryPid = Number(readFileSync(pidFile, { encoding: "utf8", flag: "a+" }).trim()) || 0;
    }
    for (let i = 0; i < 100; i++) {
      if ((await fetch(`http://127.0.0.1:${port}/v2/`).then((r) => r.status).catch(() => 0)) === 200) break;
      await Bun.sleep(100);
    }
    repo = `127.0.0.1:${port}/runner/profiler`;
    ref = `${repo}:0.1.0`;
    const t0 = performance.now();
    must([join(REPO_ROOT, "image/build.sh"), "--dev-key", "--images", "amd64", "--out", out, "--tag", TAG, "--push", ref, "--insecure-registry"], { timeoutMs: 20 * 60_000 });
    timings.build_push_sign_s = Math.round((performance.now() - t0) / 1000);
    amd64 = `${TAG}-amd64`;
    // Debug first: mounting debugfs can automount tracefs beneath it, not at /sys/kernel/tracing.
    if (ensureMounted("/sys/kernel/debug", "debugfs")) mountedHere.push("/sys/kernel/debug");
    if (ensureMounted("/sys/kernel/tracing", "tracefs")) mountedHere.push("/sys/kernel/tracing");
  }, 25 * 60_000);

  afterAll(() => {
    process.stderr.write(`image-build timings: ${JSON.stringify(timings)}\n`);
    for (const img of [...cleanupImages, amd64]) if (img) sh(["buildah", ...STORAGE, "rmi", "-f", img]);
    sh(["buildah", ...STORAGE, "manifest", "rm", TAG]);
    if (registryPid) sh(["kill", String(registryPid)]);
    if (work) rmSync(work, { recursive: true, force: true });
    for (const m of mountedHere.reverse()) sh(["umount", m]); // leave the host as we found it
  }, 180_000);

  const signImage = (...args: string[]) => sh([process.execPath, join(REPO_ROOT, "image/sign-image.ts"), ...args]);
  const pub = () => join(out, "runner-release.pub");
  const policy = () => writeSigstorePolicy(join(work, "sigstore"), repo, pub());
  const copyScratch = () => join(work, "sigstore-copy");

  test("both architectures' binaries were built and are what `file` says", () => {
    for (const [arch, machine] of [["amd64", "x86-64"], ["arm64", "ARM aarch64"]] as const) {
      for (const bin of ["runner", "ptop"]) {
        expect(must(["file", "-b", join(out, "context", arch, bin)])).toContain(machine);
      }
    }
  }, 60_000);

  test("the signed manifest covers runner and ptop of both architectures and verifies offline with runner-release.pub", () => {
    const ctx = join(out, "context");
    const bins = ["amd64", "arm64"].flatMap((a) => ["runner", "ptop"].map((b) => `${b}/${a}=${join(ctx, a, b)}`));
    // The key build.sh publishes is the one the release manifest verifies against.
    expect(readFileSync(join(out, "runner-release.pub"), "utf8")).toBe(readFileSync(join(out, "dev-key/release-key.pub.pem"), "utf8"));
    const r = sh([process.execPath, join(REPO_ROOT, "image/sign-manifest.ts"), "verify", "--pub", join(out, "runner-release.pub"), ctx, ...bins]);
    expect(r.stderr).toBe("");
    expect(r.stdout.match(/^OK /gm)).toHaveLength(4);
    expect(r.code).toBe(0);
  }, 120_000); // digests of four binaries (two of 140 MB) on a loaded machine

  test("arm64 ptop executes under qemu-user-static", () => {
    const ptop = sh(["qemu-aarch64-static", "-L", "/usr/aarch64-linux-gnu", join(out, "context/arm64/ptop"), "--help"]);
    expect(ptop.code).toBe(2); // its usage, printed by arm64 code
    expect(ptop.stderr + ptop.stdout).toContain("usage: ptop --targets FILE");
  }, 60_000);

  test("the published list and its platform manifest are signed with the release key; runner-release.pub verifies them", () => {
    const text = must(["skopeo", "inspect", "--raw", "--tls-verify=false", `docker://${ref}`]);
    const raw = JSON.parse(text);
    expect(raw.manifests.map((m: any) => m.platform.architecture)).toEqual(["amd64"]);
    [listDigest, platformDigest] = [sha256Of(text), raw.manifests[0].digest];
    for (const d of [listDigest, platformDigest]) {
      const sig = JSON.parse(must(["skopeo", "inspect", "--raw", "--tls-verify=false", `docker://${repo}:sha256-${d.slice(7)}.sig`]));
      expect(sig.layers[0].mediaType).toBe("application/vnd.dev.cosign.simplesigning.v1+json");
      expect(sig.layers[0].annotations["dev.cosignproject.cosign/signature"]).toMatch(/^[A-Za-z0-9+/]+=*$/);
    }
    const v = signImage("verify", "--pub", join(out, "runner-release.pub"), "--insecure", ref);
    expect(v.stderr).toBe("");
    expect(v.code).toBe(0);
    expect(v.stdout.trim()).toMatch(new RegExp(`^verified ${repo.replace(/[.]/g, "\\.")}@sha256:[0-9a-f]{64}$`));
  }, 120_000);

  standardClients("standard clients accept the signatures: skopeo (sigstore) under a sigstoreSigned policy, by tag and by digest; cosign verify --key on the list and the platform manifest", () => {
    // By tag with --all: the list's signature, then the platform manifest's. By digest: that one.
    for (const [at, all] of [[ref, true], [`${repo}@${platformDigest}`, false]] as const) {
      const r = skopeoCopyUnderPolicy(policy(), at, copyScratch(), all);
      expect({ at, code: r.code, stderr: r.stderr }).toEqual({ at, code: 0, stderr: "" });
      expect(r.stdout).toContain(all ? "Storing list signatures" : "Storing signatures");
    }
    for (const [at, digest] of [[ref, listDigest], [`${repo}@${platformDigest}`, platformDigest]] as const) {
      const r = cosignVerify(pub(), at);
      expect({ at, code: r.code }).toEqual({ at, code: 0 });
      expect(r.stderr).toContain("The signatures were verified against the specified public key");
      // cosign prints the verified payloads: our simple-signing claims, for this digest and repository.
      const [claim] = JSON.parse(r.stdout);
      expect(claim.critical).toEqual({ identity: { "docker-reference": ref }, image: { "docker-manifest-digest": digest }, type: "cosign container image signature" });
    }
  }, 600_000);

  standardClients("one key: `cosign sign` with the cosign-format export of the release key (sign-manifest.ts cosign-key) verifies with runner-release.pub in image/sign-image.ts", () => {
    const passFile = join(work, "cosign-passphrase");
    writeFileSync(passFile, "image-live passphrase\n", { mode: 0o600 });
    const cosignKey = join(work, "cosign.key");
    must([process.execPath, join(REPO_ROOT, "image/sign-manifest.ts"), "cosign-key", "--key", join(out, "dev-key/release-key.pem"), "--passphrase-file", passFile, "--out", cosignKey]);
    // The platform image in a repository of its own, unsigned there until cosign signs it.
    const other = `${repo.split("/")[0]}/runner/cosign-signed`;
    must(["skopeo", "--insecure-policy", "copy", "--src-tls-verify=false", "--dest-tls-verify=false", `docker://${repo}@${platformDigest}`, `docker://${other}:1`], { timeoutMs: 300_000 });
    expect(signImage("verify", "--pub", pub(), "--insecure", `${other}:1`).stderr).toContain("is not signed");
    const signed = cosignSign(cosignKey, "image-live passphrase", `${other}@${platformDigest}`);
    expect({ code: signed.code, stderr: signed.stderr }).toMatchObject({ code: 0 });
    const v = signImage("verify", "--pub", pub(), "--insecure", `${other}:1`);
    expect(v.stderr).toBe("");
    expect(v.stdout.trim()).toBe(`verified ${other}@${platformDigest}`);
    expect(v.code).toBe(0);
  }, 600_000);

  test("the HEALTHCHECK is in the published image (Docker format) and runs doctor through setpriv", () => {
    const config = JSON.parse(must(["skopeo", "inspect", "--raw", "--config", "--tls-verify=false", `docker://${ref}`]));
    expect(config.config.Healthcheck.Test).toEqual(["CMD", "/usr/bin/setpriv", "--ambient-caps=-all", "--inh-caps=-all", "--", "/opt/runner/runner", "doctor"]);
    expect(config.config.Entrypoint).toEqual(["/usr/bin/setpriv", "--ambient-caps=-all", "--inh-caps=-all", "--", "/opt/runner/runner"]);
  }, 60_000);

  test("pulled by its verified digest, the signed image boots as the reference setup runs it", () => {
    const v = signImage("verify", "--pub", join(out, "runner-release.pub"), "--insecure", ref);
    const digestRef = v.stdout.trim().replace(/^verified /, "");
    must([...PODMAN, "pull", "--tls-verify=false", digestRef], { timeoutMs: 300_000 });
    pulled = digestRef;
    cleanupImages.push(digestRef);
    const r = runProfiler(pulled);
    expect(r.stderr).not.toContain("boot refused");
    expect(r.code).toBe(0);
    const line = r.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((o) => o.msg === "profiler booted");
    expect(line).toMatchObject({ class: "profiler", targets: 1, arch: "amd64", tenant: "acme", instance: "image-live" });
    expect(r.stdout).not.toContain("UNSIGNED"); // the release manifest inside verified too
  }, 400_000);

  // What the standard clients said at each step of the tampering below (checked by the next test).
  const tamperedRefusals: Record<string, { skopeo: { code: number; stderr: string }; cosign: { code: number; stderr: string } }> = {};
  const refusalsOfStandardClients = (step: string) => {
    if (missingSigstoreTools.length > 0) return; // the next test is then skipped, saying so
    const brief = (r: { code: number; stderr: string }) => ({ code: r.code, stderr: r.stderr });
    tamperedRefusals[step] = { skopeo: brief(skopeoCopyUnderPolicy(policy(), ref, copyScratch())), cosign: brief(cosignVerify(pub(), ref)) };
  };

  test("a tampered image pushed under the same tag (unsigned, with our signature replayed, signed with another key) is refused", () => {
    // Someone with push access replaces the tag: another entrypoint, same everything else.
    const c = must(["buildah", ...STORAGE, "from", amd64]).trim();
    try {
      must(["buildah", ...STORAGE, "config", "--entrypoint", '["/opt/runner/ptop"]', c]);
      must(["buildah", ...STORAGE, "commit", "--format", "docker", c, `${TAG}-evil`], { timeoutMs: 300_000 });
      cleanupImages.push(`${TAG}-evil`);
    } finally {
      sh(["buildah", ...STORAGE, "rm", c]);
    }
    must(["buildah", ...STORAGE, "push", "--tls-verify=false", `${TAG}-evil`, `docker://${ref}`], { timeoutMs: 300_000 });
    const evil = sha256Of(must(["skopeo", "inspect", "--raw", "--tls-verify=false", `docker://${ref}`]));
    const unsigned = signImage("verify", "--pub", pub(), "--insecure", ref);
    expect(unsigned.code).toBe(1);
    expect(unsigned.stderr).toContain("is NOT signed by the release key");
    expect(unsigned.stderr).toContain(`manifest ${evil} is not signed`);
    refusalsOfStandardClients("unsigned");
    // Our valid signature of the real platform manifest, copied to where the tampered one's goes.
    must(["skopeo", "--insecure-policy", "copy", "--quiet", "--preserve-digests", "--src-tls-verify=false", "--dest-tls-verify=false", `docker://${repo}:sha256-${platformDigest.slice(7)}.sig`, `docker://${repo}:sha256-${evil.slice(7)}.sig`]);
    const replayed = signImage("verify", "--pub", pub(), "--insecure", ref);
    expect(replayed.code).toBe(1);
    expect(replayed.stderr).toContain(`the signature is for ${platformDigest}, not for ${evil}`);
    refusalsOfStandardClients("replayed");
    // Signed, but not by us.
    const other = join(work, "other-key");
    must([process.execPath, join(REPO_ROOT, "image/sign-manifest.ts"), "keygen", other]);
    expect(signImage("sign", "--key", join(other, "release-key.pem"), "--insecure", ref).code).toBe(0);
    const forged = signImage("verify", "--pub", pub(), "--insecure", ref);
    expect(forged.code).toBe(1);
    expect(forged.stderr).toContain("the signature does not verify with the release key");
    refusalsOfStandardClients("other key");
  }, 600_000);

  standardClients("the standard clients refuse the tampered image too, naming why: skopeo (sigstoreSigned policy) and cosign verify --key", () => {
    const refused = (stderr: string) => ({ code: 1, stderr: expect.stringContaining(stderr) });
    expect(tamperedRefusals).toEqual({
      unsigned: {
        skopeo: refused("Source image rejected: A signature was required, but no signature exists"),
        cosign: { code: 10, stderr: expect.stringContaining("Error: no signatures found") },
      },
      replayed: {
        skopeo: refused(`Source image rejected: Signature for digest ${platformDigest} does not match`),
        cosign: { code: 12, stderr: expect.stringContaining(`no matching signatures: invalid or missing digest in claim: ${platformDigest}`) },
      },
      "other key": {
        skopeo: refused("Source image rejected: cryptographic signature verification failed: invalid signature when validating ASN.1 encoded signature"),
        cosign: { code: 12, stderr: expect.stringContaining("no matching signatures: invalid signature when validating ASN.1 encoded signature") },
      },
    });
  });

  test("Debian's podman with a sigstoreSigned policy: pulls the signed image where sigstore is built in, else says it is disabled", () => {
    // containers-policy.json as docs/install.md gives it; registries.d tells podman where signatures live.
    const home = join(work, "policy-home");
    mkdirSync(join(home, ".config/containers/registries.d"), { recursive: true });
    writeFileSync(join(home, ".config/containers/registries.d/runner.yaml"), `docker:\n  ${repo.split("/")[0]}:\n    use-sigstore-attachments: true\n`);
    const policy = join(work, "policy.json");
    writeFileSync(policy, JSON.stringify({ default: [{ type: "reject" }], transports: { docker: { [repo]: [{ type: "sigstoreSigned", keyPath: join(out, "runner-release.pub"), signedIdentity: { type: "matchRepository" } }] } } }));
    const r = sh([...PODMAN, "pull", "--tls-verify=false", "--signature-policy", policy, pulled], { env: { HOME: home }, timeoutMs: 300_000 });
    if (r.stderr.includes("Debian-local change: sigstore disabled")) {
      // Debian bookworm's containers/image is built without sigstore: it refuses every
      // sigstoreSigned image, ours included. Verification then goes through image/sign-image.ts.
      expect(r.code).not.toBe(0);
      process.stderr.write("image-build: this podman is built without sigstore (Debian); the policy check was not exercised\n");
      return;
    }
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const tamperedPull = sh([...PODMAN, "pull", "--tls-verify=false", "--signature-policy", policy, ref], { env: { HOME: home }, timeoutMs: 300_000 });
    expect(tamperedPull.code).not.toBe(0);
  }, 600_000);

  // getcap reads the security.capability xattr itself, from the image's final layer as stored.
  test("in the final image only ptop carries file capabilities; no setuid/setgid file; no shell, interpreter or package manager", () => {
    const ctr = must(["buildah", ...STORAGE, "from", amd64]).trim();
    try {
      const mnt = must(["buildah", ...STORAGE, "mount", ctr]).trim();
      const lines = must(["getcap", "-r", mnt]).trim().split("\n").filter(Boolean);
      expect(lines).toHaveLength(1);
      const [file, caps] = lines[0]!.split(/\s+/);
      expect(file).toBe(`${mnt}/opt/runner/ptop`);
      const [list, flags] = caps!.split("=");
      expect(flags).toBe("ep");
      expect(list!.split(",").sort()).toEqual(REQUIRED_CAPS.map((c) => c.name.toLowerCase()).sort());
      // ptop is executable by the Profiler's group only.
      const st = statSync(`${mnt}/opt/runner/ptop`);
      expect({ mode: (st.mode & 0o7777).toString(8), uid: st.uid, gid: st.gid }).toEqual({ mode: "750", uid: 0, gid: NONROOT });
      expect(must(["find", mnt, "-xdev", "-type", "f", "-perm", "/6000"]).trim()).toBe("");
      const present = must(["find", mnt, "-xdev", "(", "-type", "f", "-o", "-type", "l", ")", "-path", `${mnt}/usr/*bin/*`]).split("\n").filter(Boolean).map((p) => p.slice(p.lastIndexOf("/") + 1));
      expect(present.filter((n) => ABSENT.includes(n) || /^(python|perl)[0-9.]*$/.test(n))).toEqual([]);
      expect(present).toContain("setpriv"); // the entrypoint is there
      must(["buildah", ...STORAGE, "umount", ctr]);
    } finally {
      sh(["buildah", ...STORAGE, "rm", ctr]);
    }
  }, 120_000); // buildah from + mount of the vfs image takes > 5 s on a loaded machine

  function runProfiler(image: string, extra: string[] = [], args: string[] = ["profiler", "--boot-only"]): { code: number; stdout: string; stderr: string } {
    const dir = mkdtempSync(join(work, "run-"));
    chmodSync(dir, 0o755);
    const identity = join(dir, "identity");
    mkdirSync(identity, { mode: 0o700 });
    chownSync(identity, NONROOT, NONROOT);
    const targets = join(dir, "targets.json");
    writeFileSync(targets, JSON.stringify({ targets: [{ workload: "api" }] }), { mode: 0o644 });
    // As the kubelet leaves a Secret file with fsGroup 65532 and defaultMode 0440.
    const token = join(dir, "bootstrap-token");
    writeFileSync(token, "rpboot_imagelivetest", { mode: 0o440 });
    chownSync(token, 0, NONROOT);
    return sh(
      [
        ...PODMAN_RUN,
        "--user", `${NONROOT}:${NONROOT}`,
        "--cap-drop", "ALL",
        ...REQUIRED_CAPS.flatMap((c) => ["--cap-add", c.short]),
        ...extra,
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
        ...args,
      ],
      { timeoutMs: 180_000 },
    );
  }

  test("exactly five: --cap-add NET_ADMIN is refused naming it, --privileged is refused by name", () => {
    const more = runProfiler(amd64, ["--cap-add", "NET_ADMIN"]);
    expect(more.code).toBe(78);
    expect(more.stderr).toContain("beyond the five: CAP_NET_ADMIN");
    const priv = runProfiler(amd64, ["--privileged"]);
    expect(priv.code).toBe(78);
    expect(priv.stderr).toContain("this is a privileged container (--privileged");
  }, 400_000);

  test("inside the container, ptop (file capabilities, launched with nothing) measures a host process", () => {
    // A known workload on the host, run by another user: `yes` writes as fast as it can.
    const spin = join(work, "imgspin");
    must(["cp", "/usr/bin/yes", spin]);
    chmodSync(spin, 0o755);
    const proc = Bun.spawn(["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", spin], { stdout: "ignore" });
    try {
      const targets = join(work, "measure-targets.json");
      writeFileSync(targets, JSON.stringify({ targets: [{ workload: "imgspin" }] }), { mode: 0o644 });
      // The image's own entrypoint (setpriv, clearing ambient/inheritable) execs ptop directly: no
      // shell in the image. ptop's five come from its file capabilities alone.
      const r = sh([
        ...PODMAN_RUN,
        "--user", `${NONROOT}:${NONROOT}`, "--cap-drop", "ALL", ...REQUIRED_CAPS.flatMap((c) => ["--cap-add", c.short]),
        "--pid", "host", "--memory", "512m",
        "--volume", "/sys/kernel/tracing:/sys/kernel/tracing", "--volume", "/sys/kernel/debug:/sys/kernel/debug",
        "--volume", `${targets}:/etc/runner/targets.json:ro`,
        "--entrypoint", '["/usr/bin/setpriv","--ambient-caps=-all","--inh-caps=-all","--","/opt/runner/ptop"]', amd64,
        "--targets", "/etc/runner/targets.json", "--workload", "imgspin", "--duration", "3", "--warmup", "0", "--probes", "cpu",
      ], { timeoutMs: 180_000 });
      expect(r.code).toBe(0);
      const stream = join(work, "stream");
      writeFileSync(stream, r.stdout);
      const folded = must([...runnerCommandLine(), "witness", "fold", "--axis", "cpu", stream]).split("\n").filter((l) => /^\S.* \d+$/.test(l));
      const total = folded.reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
      expect(total).toBeGreaterThan(10);
      expect(folded.some((l) => /write/.test(l))).toBe(true);
    } finally {
      proc.kill();
    }
  }, 200_000);

  test("a tampered ptop (same file capabilities) refuses the boot naming ptop; RUNNER_ALLOW_UNSIGNED is not honoured; a mounted opt-out boots loudly", () => {
    const c = must(["buildah", ...STORAGE, "from", amd64]).trim();
    const tampered = `${TAG}-tampered`;
    try {
      // No shell in the image: modify ptop from the host through the container's mount.
      const mnt = must(["buildah", ...STORAGE, "mount", c]).trim();
      const ptop = join(mnt, "opt/runner/ptop");
      writeFileSync(ptop, Buffer.concat([readFileSync(ptop), Buffer.from([0x90])]));
      must(["setcap", `${REQUIRED_CAPS.map((x) => x.name.toLowerCase()).join(",")}+ep`, ptop]);
      must(["buildah", ...STORAGE, "umount", c]);
      must(["buildah", ...STORAGE, "commit", "--format", "docker", c, tampered], { timeoutMs: 300_000 });
      cleanupImages.push(tampered);
    } finally {
      sh(["buildah", ...STORAGE, "rm", c]);
    }
    const r = runProfiler(tampered);
    expect(r.code).toBe(78);
    expect(r.stderr).toContain("ptop at /opt/runner/ptop is not the signed release binary");
    expect(r.stderr).not.toContain("[supervisor] runner"); // runner itself is intact
    // An ENV in the image and --env look the same from inside: neither is honoured.
    const env = runProfiler(tampered, ["--env", "RUNNER_ALLOW_UNSIGNED=1"]);
    expect(env.code).toBe(78);
    expect(env.stderr).toContain("RUNNER_ALLOW_UNSIGNED is set (\"1\") but is not honoured");
    const optOut = join(work, "allow-unsigned");
    writeFileSync(optOut, "debugging a rebuilt ptop\n");
    const mounted = runProfiler(tampered, ["--volume", `${optOut}:/etc/runner/allow-unsigned:ro`]);
    expect(mounted.stderr).not.toContain("boot refused");
    expect(mounted.code).toBe(0);
    expect(mounted.stdout).toContain("UNSIGNED: /etc/runner/allow-unsigned is mounted");
  }, 600_000);

  test("a refused boot under --restart unless-stopped waits instead of restarting in a loop", async () => {
    const name = `runner-refused-${process.pid}`;
    // Refused: no environment at all. Detached with the reference restart policy.
    must([...PODMAN, "run", "--detach", "--name", name, "--restart", "unless-stopped", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096", "--user", `${NONROOT}:${NONROOT}`, "--cap-drop", "ALL", ...REQUIRED_CAPS.flatMap((c) => ["--cap-add", c.short]), amd64, "profiler"]);
    try {
      await Bun.sleep(10_000);
      const state = must([...PODMAN, "inspect", "--format", "{{.RestartCount}} {{.State.Status}}", name]).trim();
      expect(state).toBe("0 running");
      const logs = sh([...PODMAN, "logs", name]);
      expect(logs.stdout + logs.stderr).toContain("waiting 60 s before exiting");
    } finally {
      sh([...PODMAN, "rm", "--force", "--time", "0", name]);
    }
  }, 120_000);

  test("the Kubernetes pod spec (security contexts, init container, Secret and hostPath volumes) starts twice in a row under podman kube play", async () => {
    const docs = Bun.YAML.parse(readFileSync(join(REPO_ROOT, "image/kubernetes/daemonset.yaml"), "utf8")) as any[];
    const ds = docs.find((d) => d.kind === "DaemonSet");
    const spec = structuredClone(ds.spec.template.spec);
    // Changed for a one-shot run on this host; every securityContext stays as written.
    spec.restartPolicy = "Never";
    const identityDir = join(work, "kube-identity"); // absent: DirectoryOrCreate makes it, root-owned
    for (const v of spec.volumes) if (v.name === "identity") v.hostPath.path = identityDir;
    // Pods and secrets are podman-wide: names of this run's own, so a parallel run of this file
    // (another worktree, CI) cannot take down or replace ours.
    const podName = `runner-profiler-kube-${process.pid}`;
    const container = `${podName}-profiler`;
    const secretName = `runner-profiler-bootstrap-${process.pid}`;
    for (const v of spec.volumes) if (v.secret) v.secret.secretName = secretName;
    const profiler = spec.containers.find((x: any) => x.name === "profiler");
    profiler.args = ["profiler", "--boot-only"];
    // podman does not know the downward API's spec.nodeName: the node name, spelled out.
    for (const e of profiler.env) if (e.name === "RUNNER_INSTANCE_ID") Object.assign(e, { value: "kube-node-1", valueFrom: undefined });
    for (const ct of [...spec.initContainers, ...spec.containers]) ct.image = pulled;
    if (!appArmorEnabled()) delete profiler.securityContext.appArmorProfile; // as install-kubernetes.md says for such nodes
    const annotations = appArmorEnabled() ? ds.spec.template.metadata.annotations : {};
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: podName, labels: ds.spec.template.metadata.labels, annotations }, spec };
    const cm = docs.find((d) => d.kind === "ConfigMap");
    const play = join(work, "kube.yaml");
    writeFileSync(play, `${JSON.stringify({ ...cm, metadata: { name: cm.metadata.name } })}\n---\n${JSON.stringify(pod)}\n`);
    // podman reads a Secret volume from a podman secret holding the Secret object.
    const secretYaml = join(work, "secret.json");
    writeFileSync(secretYaml, JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: secretName }, data: { token: Buffer.from("rpboot_kubeplay").toString("base64") } }));
    sh([...PODMAN, "secret", "rm", secretName]);
    must([...PODMAN, "secret", "create", secretName, secretYaml]);
    // The sandbox may not raise rlimits (no CAP_SYS_RESOURCE): containers.conf lowers podman's
    // defaults. Podman 4.3's kube play ignores hostPID (the pod keeps its own PID namespace, and the
    // boot refuses it, naming it): pidns = "host" stands in for it.
    const conf = join(work, "containers.conf");
    writeFileSync(conf, '[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]\npidns = "host"\n');
    const env = { CONTAINERS_CONF: conf };
    try {
      for (const round of [1, 2]) {
        must([...PODMAN, "kube", "play", play], { env, timeoutMs: 300_000 });
        let status = "";
        for (let i = 0; i < 120 && status !== "exited"; i++) {
          await Bun.sleep(500);
          status = sh([...PODMAN, "inspect", "--format", "{{.State.Status}}", container]).stdout.trim();
        }
        const logs = sh([...PODMAN, "logs", container]);
        const code = must([...PODMAN, "inspect", "--format", "{{.State.ExitCode}}", container]).trim();
        expect({ round, code, refused: logs.stderr.includes("boot refused") }).toEqual({ round, code: "0", refused: false });
        expect(logs.stdout).toContain('"msg":"profiler booted"');
        expect(must(["stat", "-c", "%u:%g %a", identityDir]).trim()).toBe("65532:65532 700");
        must([...PODMAN, "kube", "down", play], { env });
      }
    } finally {
      sh([...PODMAN, "kube", "down", play], { env });
      sh([...PODMAN, "secret", "rm", secretName]);
    }
  }, 900_000);
});

function sha256Of(text: string): string {
  return `sha256:${new Bun.CryptoHasher("sha256").update(text).digest("hex")}`;
}

function appArmorEnabled(): boolean {
  try {
    return readFileSync("/sys/module/apparmor/parameters/enabled", "utf8").trim() === "Y";
  } catch {
    return false;
  }
}
