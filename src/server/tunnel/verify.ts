// Verifies a Profiler's answer to the tunnel challenge with the ed25519 key it enrolled.
import sodium from "libsodium-wrappers";
import { handshakeMessage } from "../../protocol/tunnel.ts";

export async function verifyHandshake(
  publicKeyB64: string,
  signatureB64: string,
  challenge: string,
  tenant: string,
  instanceId: string,
): Promise<boolean> {
  await sodium.ready;
  const key = Buffer.from(publicKeyB64, "base64");
  const sig = Buffer.from(signatureB64, "base64");
  if (key.length !== sodium.crypto_sign_PUBLICKEYBYTES || sig.length !== sodium.crypto_sign_BYTES) return false;
  return sodium.crypto_sign_verify_detached(sig, handshakeMessage(challenge, tenant, instanceId), key);
}
