// Public keys a `runner` executable trusts for its release manifest. The release build embeds the
// release public key at compile time (image/build.sh: --define RUNNER_RELEASE_PUBLIC_KEY=<base64 PEM>);
// the private key never enters the repository. A build without it (npm run build, running from
// sources) is a development build: it has nothing to verify against and says so at boot.

import { createHash, createPublicKey, type KeyObject } from "node:crypto";

declare const RUNNER_RELEASE_PUBLIC_KEY: string | undefined;

export interface TrustedKey {
  /** sha256 (hex) of the key's SubjectPublicKeyInfo DER: the sigstore bundle's key hint. */
  hint: string;
  key: KeyObject;
}

export function keyHint(key: KeyObject): string {
  return createHash("sha256").update(key.export({ type: "spki", format: "der" })).digest("hex");
}

export function trustedKeyFromPem(pem: string): TrustedKey {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
    throw new Error("release keys are ECDSA P-256 (sigstore's default)");
  }
  return { hint: keyHint(key), key };
}

/** The release key compiled into this executable, or undefined for a development build. */
export function embeddedReleaseKey(): TrustedKey | undefined {
  const b64 = typeof RUNNER_RELEASE_PUBLIC_KEY === "string" ? RUNNER_RELEASE_PUBLIC_KEY : undefined;
  if (!b64) return undefined;
  return trustedKeyFromPem(Buffer.from(b64, "base64").toString("utf8"));
}
