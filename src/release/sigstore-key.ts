// The release key in the private-key format cosign and containers/image (podman, skopeo
// --sign-by-sigstore-private-key) read: PEM "ENCRYPTED COSIGN PRIVATE KEY" around a JSON envelope
// (scrypt N=32768 r=8 p=1 → 32-byte key; nacl secretbox = XSalsa20-Poly1305) holding the PKCS#8
// DER of the same ECDSA P-256 key that signs the release manifest. One key, two formats: the
// manifest bundle and the image signature verify against one public key, runner-release.pub.

import { createPrivateKey, randomBytes, scryptSync } from "node:crypto";
import sodium from "libsodium-wrappers";

export const SIGSTORE_KEY_PEM_TYPE = "ENCRYPTED COSIGN PRIVATE KEY";
const SCRYPT = { N: 32768, r: 8, p: 1 };

interface Envelope {
  kdf: { name: "scrypt"; params: { N: number; r: number; p: number }; salt: string };
  cipher: { name: "nacl/secretbox"; nonce: string };
  ciphertext: string;
}

function deriveKey(passphrase: Uint8Array, salt: Buffer, p: { N: number; r: number; p: number }): Buffer {
  return scryptSync(passphrase, salt, 32, { N: p.N, r: p.r, p: p.p, maxmem: 256 * p.N * p.r + 1024 * 1024 });
}

function pem(type: string, der: Buffer): string {
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.join("\n")}\n-----END ${type}-----\n`;
}

/** The PKCS#8 private key (PEM) re-encoded as an encrypted cosign/sigstore private key. */
export async function toSigstorePrivateKey(privatePem: string, passphrase: Uint8Array): Promise<string> {
  const key = createPrivateKey(privatePem);
  if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") throw new Error("the release key must be ECDSA P-256");
  await sodium.ready;
  const der = key.export({ type: "pkcs8", format: "der" });
  const salt = randomBytes(32);
  const nonce = randomBytes(sodium.crypto_secretbox_NONCEBYTES);
  const sealed = sodium.crypto_secretbox_easy(der, nonce, deriveKey(passphrase, salt, SCRYPT));
  const envelope: Envelope = {
    kdf: { name: "scrypt", params: SCRYPT, salt: salt.toString("base64") },
    cipher: { name: "nacl/secretbox", nonce: nonce.toString("base64") },
    ciphertext: Buffer.from(sealed).toString("base64"),
  };
  return pem(SIGSTORE_KEY_PEM_TYPE, Buffer.from(JSON.stringify(envelope)));
}

/** Decrypts a cosign/sigstore private key back to PKCS#8 PEM (so a cosign-generated key can sign the manifest too). */
export async function fromSigstorePrivateKey(text: string, passphrase: Uint8Array): Promise<string> {
  const m = /-----BEGIN (ENCRYPTED (?:COSIGN|SIGSTORE) PRIVATE KEY)-----([\s\S]*?)-----END \1-----/.exec(text);
  if (!m) throw new Error(`not an encrypted cosign/sigstore private key (PEM ${SIGSTORE_KEY_PEM_TYPE})`);
  const env = JSON.parse(Buffer.from(m[2]!.replace(/\s+/g, ""), "base64").toString("utf8")) as Envelope;
  if (env.kdf?.name !== "scrypt" || env.cipher?.name !== "nacl/secretbox") throw new Error("unsupported key encryption (want scrypt + nacl/secretbox)");
  await sodium.ready;
  const key = deriveKey(passphrase, Buffer.from(env.kdf.salt, "base64"), env.kdf.params);
  let der: Uint8Array;
  try {
    der = sodium.crypto_secretbox_open_easy(Buffer.from(env.ciphertext, "base64"), Buffer.from(env.cipher.nonce, "base64"), key);
  } catch {
    throw new Error("wrong passphrase for the sigstore private key (or the key is corrupt)");
  }
  return createPrivateKey({ key: Buffer.from(der), format: "der", type: "pkcs8" }).export({ type: "pkcs8", format: "pem" }).toString();
}
