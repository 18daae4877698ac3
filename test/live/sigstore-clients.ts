// The standard Sigstore clients the image-signature tests check our signatures with: cosign, and
// skopeo built with sigstore (containers/image, the library podman and CRI-O verify with).
// Debian 12's skopeo/podman have sigstore disabled and it has no cosign, so on CI they come from
// Debian 13 via .ci/trixie-tools.sh into /opt/runner-ci/trixie/bin; RUNNER_SIGSTORE_TOOLS names
// another directory holding `cosign` and a sigstore-enabled `skopeo`.
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const SIGSTORE_TOOLS = process.env.RUNNER_SIGSTORE_TOOLS ?? "/opt/runner-ci/trixie/bin";
export const COSIGN = join(SIGSTORE_TOOLS, "cosign");
export const SKOPEO_SIGSTORE = join(SIGSTORE_TOOLS, "skopeo");
export const missingSigstoreTools = [COSIGN, SKOPEO_SIGSTORE].filter((p) => !existsSync(p));

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(argv: string[], env: Record<string, string> = {}): Run {
  const r = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env }, timeout: 300_000 });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

/** Writes docs/install.md's policy.json (sigstoreSigned, runner-release.pub, matchRepository)
 *  and registries.d/runner.yaml (signatures as sigstore attachments) for `repo`, under `dir`. */
export function writeSigstorePolicy(dir: string, repo: string, pubKey: string): { policy: string; registriesD: string } {
  const registriesD = join(dir, "registries.d");
  mkdirSync(registriesD, { recursive: true });
  writeFileSync(join(registriesD, "runner.yaml"), `docker:\n  ${repo.split("/")[0]}:\n    use-sigstore-attachments: true\n`);
  const policy = join(dir, "policy.json");
  const requirement = { type: "sigstoreSigned", keyPath: pubKey, signedIdentity: { type: "matchRepository" } };
  writeFileSync(policy, JSON.stringify({ default: [{ type: "reject" }], transports: { docker: { [repo]: [requirement] } } }));
  return { policy, registriesD };
}

/** `skopeo copy` of `ref` (plain HTTP registry) under the policy into a scratch dir: transport,
 *  which the policy gates before any layer is fetched. `all`: the list and every platform image. */
export function skopeoCopyUnderPolicy(p: { policy: string; registriesD: string }, ref: string, scratch: string, all = false): Run {
  rmSync(scratch, { recursive: true, force: true });
  try {
    return run([SKOPEO_SIGSTORE, "--policy", p.policy, "--registries.d", p.registriesD, "copy", ...(all ? ["--all"] : []), "--src-tls-verify=false", `docker://${ref}`, `dir:${scratch}`]);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** `cosign verify --key` without a transparency log (key-based, as we sign), plain HTTP registry. */
export function cosignVerify(pubKey: string, ref: string): Run {
  return run([COSIGN, "verify", "--key", pubKey, "--insecure-ignore-tlog=true", "--allow-http-registry", ref]);
}

/** `cosign sign --key` with a cosign-format key, no transparency-log upload. */
export function cosignSign(cosignKey: string, passphrase: string, ref: string): Run {
  return run([COSIGN, "sign", "--key", cosignKey, "--tlog-upload=false", "--allow-http-registry", "--yes", ref], { COSIGN_PASSWORD: passphrase });
}
