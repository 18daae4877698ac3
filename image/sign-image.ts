// Image signatures with the release key (runs where the key is; never inside the Profiler). All
// registry traffic goes through skopeo, so its usual credentials (auth.json, --authfile) apply.
//   bun image/sign-image.ts sign   --key release-key.pem [--insecure] REGISTRY/REPO:TAG
//       signs the manifest (list) at TAG and, for a list, every platform manifest in it, in the
//       cosign/Sigstore format (tag sha256-<hex>.sig beside the image)
//   bun image/sign-image.ts verify --pub runner-release.pub [--insecure] REGISTRY/REPO:TAG
//       checks those signatures the way cosign / containers/image do; prints
//       "verified REGISTRY/REPO@sha256:…" and exits 0, or names what failed and exits 1
// --insecure: plain HTTP / unverified TLS to the registry (a registry on 127.0.0.1 in tests).
import { createPrivateKey, createPublicKey } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkSignature, repositoryOf, sha256Digest, signatureArtifact, signaturePayload, signatureTag, signPayload, SIMPLESIGNING_MEDIA_TYPE, SIGNATURE_ANNOTATION, type SignatureLayer } from "../src/release/image-signature.ts";

function die(msg: string): never {
  process.stderr.write(`sign-image: ${msg}\n`);
  process.exit(1);
}

function skopeo(args: string[]): { code: number; stdout: Buffer; stderr: string } {
  const r = Bun.spawnSync(["skopeo", ...args], { stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode ?? 1, stdout: Buffer.from(r.stdout), stderr: r.stderr.toString() };
}

interface Manifest {
  mediaType?: string;
  manifests?: { digest: string; platform?: { architecture?: string; os?: string } }[];
  layers?: { mediaType: string; digest: string; annotations?: Record<string, string> }[];
}

const args = process.argv.slice(2);
const cmd = args.shift();
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const v = args[i + 1] ?? die(`${name} needs a value`);
  args.splice(i, 2);
  return v;
};
const key = opt("--key");
const pub = opt("--pub");
const insecure = args.includes("--insecure");
const ref = args.filter((a) => a !== "--insecure")[0] ?? die("name the image: REGISTRY/REPO:TAG");
const tls = insecure ? ["--tls-verify=false"] : [];
const repo = repositoryOf(ref);

/** The raw manifest at `ref` (tag or digest) and its digest. */
function rawManifest(at: string): { bytes: Buffer; digest: string; parsed: Manifest } {
  const r = skopeo(["inspect", "--raw", ...tls, `docker://${at}`]);
  if (r.code !== 0) die(`cannot read the manifest of ${at}: ${r.stderr.trim()}`);
  return { bytes: r.stdout, digest: sha256Digest(r.stdout), parsed: JSON.parse(r.stdout.toString("utf8")) as Manifest };
}

/** The top manifest and, for a list, each platform manifest: what gets signed. */
function digestsToSign(top: ReturnType<typeof rawManifest>): { digest: string; what: string }[] {
  const out = [{ digest: top.digest, what: top.parsed.manifests ? "manifest list" : "manifest" }];
  for (const m of top.parsed.manifests ?? []) out.push({ digest: m.digest, what: `${m.platform?.os ?? "?"}/${m.platform?.architecture ?? "?"} manifest` });
  return out;
}

function sign(privatePem: string): void {
  const privateKey = createPrivateKey(privatePem);
  const top = rawManifest(ref);
  for (const { digest, what } of digestsToSign(top)) {
    const payload = signaturePayload(ref, digest);
    const art = signatureArtifact(payload, signPayload(payload, privateKey));
    const dir = mkdtempSync(join(tmpdir(), "sign-image-"));
    try {
      mkdirSync(join(dir, "blobs/sha256"), { recursive: true });
      for (const b of [...art.blobs, art.manifest]) writeFileSync(join(dir, "blobs/sha256", sha256Digest(b).slice(7)), b);
      writeFileSync(join(dir, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }));
      writeFileSync(join(dir, "index.json"), JSON.stringify({ schemaVersion: 2, manifests: [{ mediaType: "application/vnd.oci.image.manifest.v1+json", size: art.manifest.length, digest: sha256Digest(art.manifest) }] }));
      // The artifact is ours and unsigned by nature: no policy applies to copying it.
      const r = skopeo(["--insecure-policy", "copy", "--quiet", "--preserve-digests", ...(insecure ? ["--dest-tls-verify=false"] : []), `oci:${dir}`, `docker://${repo}:${signatureTag(digest)}`]);
      if (r.code !== 0) die(`cannot push the signature of ${digest}: ${r.stderr.trim()}`);
      process.stdout.write(`signed ${what} ${repo}@${digest}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/** The signature layers stored for `digest` (none when the signature tag does not exist). */
function signaturesOf(digest: string): SignatureLayer[] {
  const dir = mkdtempSync(join(tmpdir(), "verify-image-"));
  try {
    const r = skopeo(["--insecure-policy", "copy", "--quiet", "--preserve-digests", ...(insecure ? ["--src-tls-verify=false"] : []), `docker://${repo}:${signatureTag(digest)}`, `oci:${dir}`]);
    if (r.code !== 0) return [];
    const index = JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as { manifests: { digest: string }[] };
    const blob = (d: string) => readFileSync(join(dir, "blobs/sha256", d.slice(7)));
    const m = JSON.parse(blob(index.manifests[0]!.digest).toString("utf8")) as Manifest;
    return (m.layers ?? []).filter((l) => l.mediaType === SIMPLESIGNING_MEDIA_TYPE).map((l) => ({ payload: blob(l.digest), signatureB64: l.annotations?.[SIGNATURE_ANNOTATION] }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function verifyAll(publicPem: string): void {
  const publicKey = createPublicKey(publicPem);
  const top = rawManifest(ref);
  const problems: string[] = [];
  for (const { digest, what } of digestsToSign(top)) {
    const layers = signaturesOf(digest);
    if (layers.length === 0) {
      problems.push(`${what} ${digest} is not signed (no ${signatureTag(digest)} in ${repo})`);
      continue;
    }
    const reasons = layers.map((l) => checkSignature(l, publicKey, digest, repo));
    if (reasons.every((r) => r !== undefined)) problems.push(`${what} ${digest}: ${reasons.join("; ")}`);
  }
  if (problems.length > 0) die(`${ref} is NOT signed by the release key:\n  ${problems.join("\n  ")}`);
  process.stdout.write(`verified ${repo}@${top.digest}\n`);
}

if (cmd === "sign") sign(readFileSync(key ?? die("--key release-key.pem is required"), "utf8"));
else if (cmd === "verify") verifyAll(readFileSync(pub ?? die("--pub runner-release.pub is required"), "utf8"));
else die("usage: sign-image.ts sign --key KEY.pem [--insecure] REF | verify --pub KEY.pub [--insecure] REF");
