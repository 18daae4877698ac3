// Release tooling (never loaded by the Profiler): builds the manifest of the shipped binaries and
// signs it into a sigstore message-signature bundle with the release key. Key-based and offline:
// no Fulcio certificate, no Rekor entry, so it runs where the key is (an offline signing host).

import { createPrivateKey, createPublicKey, generateKeyPairSync, sign as ecSign, type KeyObject } from "node:crypto";
import { bundleToJSON } from "@sigstore/bundle";
import { MessageSignatureBundleBuilder } from "@sigstore/sign";
import { digestFile } from "./digest.ts";
import { keyHint } from "./keys.ts";
import { MANIFEST_SCHEMA_ID, type Arch, type BinaryName, type Manifest } from "./manifest.ts";

export interface BinaryInput {
  name: BinaryName;
  arch: Arch;
  path: string;
}

export function buildManifest(version: string, inputs: BinaryInput[]): Manifest {
  return { schema: MANIFEST_SCHEMA_ID, version, binaries: inputs.map((i) => ({ name: i.name, arch: i.arch, ...digestFile(i.path) })) };
}

/** An ECDSA P-256 key pair as PEM (PKCS#8 private, SPKI public). */
export function generateReleaseKey(): { privatePem: string; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  return {
    privatePem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

/** Signs the exact manifest bytes; returns the bundle as JSON text. */
export async function signManifest(manifestText: string, privatePem: string): Promise<string> {
  const privateKey: KeyObject = createPrivateKey(privatePem);
  const publicKey = createPublicKey(privateKey);
  const publicPem = publicKey.export({ type: "spki", format: "pem" }).toString();
  const hint = keyHint(publicKey);
  const builder = new MessageSignatureBundleBuilder({
    signer: { sign: async (data: Buffer) => ({ signature: ecSign("sha256", data, privateKey), key: { $case: "publicKey", publicKey: publicPem, hint } }) },
    witnesses: [],
  });
  const bundle = await builder.create({ data: Buffer.from(manifestText, "utf8") });
  return `${JSON.stringify(bundleToJSON(bundle), null, 2)}\n`;
}
