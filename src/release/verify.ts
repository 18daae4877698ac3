// Offline verification of the release manifest's sigstore bundle against a trusted public key:
// no transparency log, no timestamp authority, no network (the Profiler's host may reach nothing
// but its own control plane). @sigstore/verify checks the bundle's shape, that its digest is the
// manifest's, and the ECDSA signature with the key the bundle's hint names.

import { bundleFromJSON } from "@sigstore/bundle";
import { toSignedEntity, Verifier, type TrustMaterial } from "@sigstore/verify";
import { parseManifest, type Manifest } from "./manifest.ts";
import type { TrustedKey } from "./keys.ts";

export class ManifestSignatureError extends Error {
  override name = "ManifestSignatureError";
}

function trustMaterial(keys: TrustedKey[]): TrustMaterial {
  return {
    certificateAuthorities: [],
    timestampAuthorities: [],
    tlogs: [],
    ctlogs: [],
    publicKey: (hint: string) => {
      const k = keys.find((t) => t.hint === hint);
      if (!k) throw new ManifestSignatureError(`the manifest is signed by key ${hint.slice(0, 16)}…, which this runner does not trust`);
      return { publicKey: k.key, validFor: () => true };
    },
  };
}

/** Verifies `bundleJson` over `manifestBytes` and returns the parsed manifest and the signing key's hint. */
export function verifyManifest(manifestBytes: Uint8Array, bundleJson: string, keys: TrustedKey[]): { manifest: Manifest; keyHint: string } {
  let entity;
  try {
    const bundle = bundleFromJSON(JSON.parse(bundleJson));
    entity = toSignedEntity(bundle, Buffer.from(manifestBytes));
  } catch (err) {
    throw new ManifestSignatureError(`the manifest signature bundle is malformed: ${(err as Error).message}`);
  }
  if (entity.key.$case !== "public-key") throw new ManifestSignatureError("the manifest must be signed with the release key, not a certificate");
  const hint = entity.key.hint;
  try {
    new Verifier(trustMaterial(keys), { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 }).verify(entity);
  } catch (err) {
    if (err instanceof ManifestSignatureError) throw err;
    throw new ManifestSignatureError(`the manifest signature does not verify: ${(err as Error).message}`);
  }
  return { manifest: parseManifest(manifestBytes), keyHint: hint };
}
