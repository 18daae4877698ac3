// Boot check: runner and ptop are the bytes we shipped. A release build carries the release public
// key (src/release/keys.ts) and finds the signed manifest beside itself; it verifies the manifest's
// sigstore bundle offline and the sha256 of both executables for this architecture, and refuses,
// naming the binary, on any mismatch. ptop holds five capabilities: a replaced ptop is the one
// tampering that matters most. RUNNER_ALLOW_UNSIGNED=1 skips the check, loudly, for development.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { collectorPathFrom } from "../../config/profiler-env.ts";
import { digestFile } from "../../release/digest.ts";
import { embeddedReleaseKey, type TrustedKey } from "../../release/keys.ts";
import { BUNDLE_FILE, findBinary, MANIFEST_FILE, type BinaryName } from "../../release/manifest.ts";
import { verifyManifest } from "../../release/verify.ts";
import { archName } from "./boot-line.ts";
import { fail, pass, warn, type CheckName, type Finding } from "./finding.ts";

export interface SignatureInputs {
  /** The running `runner` executable. */
  selfPath: string;
  collectorPath: string;
  /** Where release-manifest.json and its bundle live (beside runner). */
  manifestDir: string;
  arch: string;
  /** The compiled-in release key; undefined in a development build. */
  releaseKey: TrustedKey | undefined;
  allowUnsigned: string | undefined;
}

const REINSTALL = "reinstall runner and ptop from the signed release (image or archive) without modifying them; only for a development build set RUNNER_ALLOW_UNSIGNED=1";
const COST = "a modified or replaced ptop would run with five capabilities (BPF, PERFMON, SYS_PTRACE, DAC_READ_SEARCH, SYS_ADMIN) unnoticed";

export function checkSignature(env: Record<string, string | undefined>): Finding[] {
  return checkSignatureWith({
    selfPath: process.execPath,
    collectorPath: collectorPathFrom(env),
    manifestDir: dirname(process.execPath),
    arch: archName(),
    releaseKey: embeddedReleaseKey(),
    allowUnsigned: env.RUNNER_ALLOW_UNSIGNED,
  });
}

export function checkSignatureWith(i: SignatureInputs): Finding[] {
  if (i.allowUnsigned !== undefined && i.allowUnsigned !== "" && i.allowUnsigned !== "1") {
    return [fail("env", "RUNNER_ALLOW_UNSIGNED", `RUNNER_ALLOW_UNSIGNED must be 1 or unset, got "${i.allowUnsigned}"`, "unset it (verify the signed binaries) or set it to 1 (development builds only)", COST)];
  }
  if (i.allowUnsigned === "1") {
    return [warn("supervisor", "RUNNER_ALLOW_UNSIGNED", "UNSIGNED: RUNNER_ALLOW_UNSIGNED=1, runner and ptop are NOT verified against the signed release manifest; development only, never in production", "unset RUNNER_ALLOW_UNSIGNED and run the signed release", COST)];
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
