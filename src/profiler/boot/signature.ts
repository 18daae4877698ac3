// Boot check: runner and ptop are the bytes we shipped. A release build carries the release public
// key (src/release/keys.ts) and finds the signed manifest beside itself; it verifies the manifest's
// sigstore bundle offline and the sha256 of both executables for this architecture, and refuses,
// naming the binary, on any mismatch. ptop holds five capabilities: a replaced ptop is the one
// tampering that matters most.
//
// The opt-out must come from outside the image: an environment variable or a command-line flag can
// be baked into an image's config (ENV, CMD) by whoever built it, so neither is honoured. It is a
// file, ALLOW_UNSIGNED_PATH, that counts only when it is a mount point of its own (a bind mount
// from the host: docker -v, a Kubernetes volume with subPath, systemd BindReadOnlyPaths=); no
// image layer can create a mount point. The check is skipped then, loudly, at every boot.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { collectorPathFrom } from "../../config/profiler-env.ts";
import { digestFile } from "../../release/digest.ts";
import { embeddedReleaseKey, type TrustedKey } from "../../release/keys.ts";
import { BUNDLE_FILE, findBinary, MANIFEST_FILE, type BinaryName } from "../../release/manifest.ts";
import { verifyManifest } from "../../release/verify.ts";
import { archName } from "./boot-line.ts";
import { deployFix, fail, pass, warn, type CheckName, type Finding } from "./finding.ts";
import { readMounts } from "./mountinfo.ts";

/** The operator's opt-out: honoured only as a mount point (see above). */
export const ALLOW_UNSIGNED_PATH = "/etc/runner/allow-unsigned";

export interface SignatureInputs {
  /** The running `runner` executable. */
  selfPath: string;
  collectorPath: string;
  /** Where release-manifest.json and its bundle live (beside runner). */
  manifestDir: string;
  arch: string;
  /** The compiled-in release key; undefined in a development build. */
  releaseKey: TrustedKey | undefined;
  /** RUNNER_ALLOW_UNSIGNED as found in the environment (no longer honoured: refused when set). */
  allowUnsignedEnv: string | undefined;
  /** Whether ALLOW_UNSIGNED_PATH is a mount point of its own. */
  allowUnsignedMounted: boolean;
}

const REINSTALL = `reinstall runner and ptop from the signed release (image or archive) without modifying them; to run unverified binaries anyway (debugging only), bind-mount a file at ${ALLOW_UNSIGNED_PATH}`;
const OPT_OUT_FIX = deployFix({
  docker: `--volume /etc/runner/allow-unsigned:${ALLOW_UNSIGNED_PATH}:ro (any file; compose: the same under volumes:)`,
  kubernetes: `a ConfigMap volume mounted with subPath at ${ALLOW_UNSIGNED_PATH}`,
  systemd: `BindReadOnlyPaths=/etc/runner/allow-unsigned:${ALLOW_UNSIGNED_PATH}`,
});
const COST = "a modified or replaced ptop would run with five capabilities (BPF, PERFMON, SYS_PTRACE, DAC_READ_SEARCH, SYS_ADMIN) unnoticed";

export function checkSignature(env: Record<string, string | undefined>): Finding[] {
  return checkSignatureWith({
    selfPath: process.execPath,
    collectorPath: collectorPathFrom(env),
    manifestDir: dirname(process.execPath),
    arch: archName(),
    releaseKey: embeddedReleaseKey(),
    allowUnsignedEnv: env.RUNNER_ALLOW_UNSIGNED,
    allowUnsignedMounted: readMounts().some((m) => m.mountPoint === ALLOW_UNSIGNED_PATH),
  });
}

export function checkSignatureWith(i: SignatureInputs): Finding[] {
  if (i.allowUnsignedEnv !== undefined && i.allowUnsignedEnv !== "") {
    return [fail("env", "RUNNER_ALLOW_UNSIGNED", `RUNNER_ALLOW_UNSIGNED is set ("${i.allowUnsignedEnv}") but is not honoured: an image can carry it in its config. Unset it; the opt-out is a file bind-mounted at ${ALLOW_UNSIGNED_PATH}`, OPT_OUT_FIX, COST)];
  }
  if (i.allowUnsignedMounted) {
    return [warn("supervisor", ALLOW_UNSIGNED_PATH, `UNSIGNED: ${ALLOW_UNSIGNED_PATH} is mounted, runner and ptop are NOT verified against the signed release manifest; debugging only, never in production`, `remove the ${ALLOW_UNSIGNED_PATH} mount and run the signed release`, COST)];
  }
  if (!i.releaseKey) {
    return [warn("supervisor", "release key", "UNSIGNED: development build (no release key compiled in), runner and ptop are NOT verified against a signed release manifest", "deploy the signed release image or archive, whose runner verifies itself and ptop at boot", COST)];
  }

  const manifestPath = join(i.manifestDir, MANIFEST_FILE);
  const bundlePath = join(i.manifestDir, BUNDLE_FILE);
  const missing = [manifestPath, bundlePath].filter((p) => !existsSync(p));
  if (missing.length > 0) {
    return [fail("supervisor", missing[0]!, `the signed release manifest is missing (${missing.join(", ")}): this release build cannot verify runner and ptop`, REINSTALL, COST)];
  }
  let manifest;
  try {
    manifest = verifyManifest(readFileSync(manifestPath), readFileSync(bundlePath, "utf8"), [i.releaseKey]).manifest;
  } catch (err) {
    return [fail("supervisor", manifestPath, `release manifest ${manifestPath} is not signed by the release key: ${(err as Error).message}`, REINSTALL, COST)];
  }

  const findings: Finding[] = [];
  const binaries: [BinaryName, string, CheckName][] = [
    ["runner", i.selfPath, "supervisor"],
    ["ptop", i.collectorPath, "collector"],
  ];
  for (const [name, path, check] of binaries) {
    const expected = findBinary(manifest, name, i.arch);
    if (!expected) {
      findings.push(fail(check, name, `${name}: the signed release manifest (version ${manifest.version}) has no ${name} for ${i.arch}`, REINSTALL, COST));
      continue;
    }
    let actual;
    try {
      actual = digestFile(path);
    } catch (err) {
      if (name === "ptop" && !existsSync(path)) continue; // the collector check already reports a missing ptop
      findings.push(fail(check, name, `${name} at ${path} cannot be read to verify it: ${(err as Error).message}`, REINSTALL, COST));
      continue;
    }
    if (actual.sha256 !== expected.sha256 || actual.size !== expected.size) {
      findings.push(
        fail(
          check,
          name,
          `${name} at ${path} is not the signed release binary (sha256 ${actual.sha256.slice(0, 16)}…, ${actual.size} bytes; the manifest of version ${manifest.version} says ${expected.sha256.slice(0, 16)}…, ${expected.size} bytes for ${i.arch}): it was modified or replaced`,
          REINSTALL,
          name === "ptop" ? COST : "a modified runner is not the supervisor we shipped; nothing it reports can be trusted",
        ),
      );
    } else {
      findings.push(pass(check, name, `${name} matches the signed release manifest (version ${manifest.version}, ${i.arch})`));
    }
  }
  return findings;
}
