// The enrolled public key is what every later tunnel handshake is checked against, so it is
// refused at enrolment unless it can only mean one ed25519 key: standard base64 written the one
// way it encodes (a decoder ignores what follows "=" and the spare low bits of the last
// character, so "…=AAAA" would name the same bytes as "…="), 32 bytes, the canonical encoding of
// a point of the prime-order group. A key of small order (the identity, all zeros, the other
// torsion points) verifies signatures an attacker can forge without any secret; libsodium's verify
// refuses them too, but the store should never hold one.
import sodium from "libsodium-wrappers";

const ED25519_KEY_BYTES = 32;
const STANDARD_BASE64_32 = /^[A-Za-z0-9+/]{43}=$/;

/** Why `b64` is no usable ed25519 public key, or undefined when it is one. */
export async function ed25519PublicKeyProblem(b64: string): Promise<string | undefined> {
  if (!STANDARD_BASE64_32.test(b64)) {
    return `must be ${ED25519_KEY_BYTES} bytes in standard base64: 43 characters of A-Z a-z 0-9 + / then one "=" (got ${b64.length} characters)`;
  }
  const key = Buffer.from(b64, "base64");
  if (key.toString("base64") !== b64) return "is not canonical base64: its last character carries bits past the 32 bytes";
  if (key.every((b) => b === 0)) return "is all zeros, a point of small order, not a public key";
  if (key[0] === 1 && key.subarray(1).every((b) => b === 0)) return "is the identity point, not a public key";
  if (nonCanonicalY(key)) return "is not the canonical encoding of a point (its y coordinate is not reduced mod 2^255-19)";
  await sodium.ready;
  // libsodium refuses, with one answer, a point off the curve, one of small order and one outside
  // the prime-order subgroup before converting it.
  try {
    sodium.crypto_sign_ed25519_pk_to_curve25519(key);
  } catch {
    return "is not a point of the ed25519 prime-order group (off the curve, of small order, or with a torsion component)";
  }
  return undefined;
}

/** y ≥ p = 2^255 - 19 (little-endian, sign bit aside): only the 19 values from p to 2^255 - 1. */
function nonCanonicalY(key: Uint8Array): boolean {
  if ((key[31]! & 0x7f) !== 0x7f) return false;
  for (let i = 30; i >= 1; i--) if (key[i] !== 0xff) return false;
  return key[0]! >= 0xed;
}
