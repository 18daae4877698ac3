// Container-image signatures in the Sigstore/cosign key-based format, signed with the release key
// (the same ECDSA P-256 key as the release manifest; runner-release.pub verifies both):
//   - the payload is cosign's "simple signing" JSON binding a docker reference to a manifest digest;
//   - the signature is ECDSA over sha256(payload), DER, base64, in the layer annotation
//     dev.cosignproject.cosign/signature;
//   - it is stored in the image's own repository as an OCI image tagged sha256-<hex>.sig whose one
//     layer (application/vnd.dev.cosign.simplesigning.v1+json) is the payload.
// That is what `cosign verify --key` and containers/image's `sigstoreSigned` policy read. Debian's
// podman/skopeo are built with sigstore disabled (they can neither write nor check it), so the
// release tooling writes it here and image/sign-image.ts verifies it the same way.

import { createHash, sign, verify, type KeyObject } from "node:crypto";

export const SIMPLESIGNING_MEDIA_TYPE = "application/vnd.dev.cosign.simplesigning.v1+json";
export const SIGNATURE_ANNOTATION = "dev.cosignproject.cosign/signature";
export const SIGNATURE_TYPE = "cosign container image signature";

export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** The tag cosign and containers/image look under for the signatures of `digest`. */
export function signatureTag(digest: string): string {
  if (!/^sha256:[0-9a-f]{64}$/.test(digest)) throw new Error(`not a sha256 digest: ${digest}`);
  return `sha256-${digest.slice(7)}.sig`;
}

/** Repository part of a docker reference: registry/path without :tag or @digest. */
export function repositoryOf(ref: string): string {
  const at = ref.indexOf("@");
  const noDigest = at >= 0 ? ref.slice(0, at) : ref;
  const slash = noDigest.lastIndexOf("/");
  const colon = noDigest.lastIndexOf(":");
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

export function signaturePayload(dockerReference: string, manifestDigest: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      critical: { identity: { "docker-reference": dockerReference }, image: { "docker-manifest-digest": manifestDigest }, type: SIGNATURE_TYPE },
      optional: null,
    }),
  );
}

export function signPayload(payload: Uint8Array, privateKey: KeyObject): string {
  return sign("sha256", payload, privateKey).toString("base64");
}

/** The signature artifact: OCI config, manifest and the payload blob, each with its digest. */
export function signatureArtifact(payload: Buffer, signatureB64: string): { blobs: Buffer[]; manifest: Buffer } {
  const config = Buffer.from(
    JSON.stringify({ architecture: "", config: {}, created: "0001-01-01T00:00:00Z", history: [{ created: "0001-01-01T00:00:00Z" }], os: "", rootfs: { type: "layers", diff_ids: [sha256Digest(payload)] } }),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: { mediaType: "application/vnd.oci.image.config.v1+json", size: config.length, digest: sha256Digest(config) },
      layers: [{ mediaType: SIMPLESIGNING_MEDIA_TYPE, size: payload.length, digest: sha256Digest(payload), annotations: { [SIGNATURE_ANNOTATION]: signatureB64 } }],
    }),
  );
  return { blobs: [payload, config], manifest };
}

export interface SignatureLayer {
  payload: Buffer;
  signatureB64: string | undefined;
}

/** Why one signature does not vouch for `digest` in `repository`, or undefined when it does. */
export function checkSignature(layer: SignatureLayer, key: KeyObject, digest: string, repository: string): string | undefined {
  if (!layer.signatureB64) return "a signature layer carries no signature annotation";
  if (!verify("sha256", layer.payload, key, Buffer.from(layer.signatureB64, "base64"))) return "the signature does not verify with the release key";
  let p: { critical?: { identity?: { "docker-reference"?: unknown }; image?: { "docker-manifest-digest"?: unknown }; type?: unknown } };
  try {
    p = JSON.parse(layer.payload.toString("utf8"));
  } catch {
    return "the signed payload is not JSON";
  }
  const c = p.critical;
  if (c?.type !== SIGNATURE_TYPE) return `the signed payload is not a "${SIGNATURE_TYPE}"`;
  if (c.image?.["docker-manifest-digest"] !== digest) return `the signature is for ${String(c.image?.["docker-manifest-digest"])}, not for ${digest}`;
  const ref = c.identity?.["docker-reference"];
  if (typeof ref !== "string" || repositoryOf(ref) !== repository) return `the signature names ${String(ref)}, not the repository ${repository}`;
  return undefined;
}
