// The release manifest and its sigstore bundle: signed with a key, verified offline with
// @sigstore/verify; every kind of tampering with the manifest, the bundle or the key is refused.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { trustedKeyFromPem } from "../../src/release/keys.ts";
import { parseManifest, serializeManifest } from "../../src/release/manifest.ts";
import { buildManifest, generateReleaseKey, signManifest } from "../../src/release/sign.ts";
import { ManifestSignatureError, verifyManifest } from "../../src/release/verify.ts";

const dir = mkdtempSync(join(tmpdir(), "sig-manifest-"));
const runnerFile = join(dir, "runner");
const ptopFile = join(dir, "ptop");
writeFileSync(runnerFile, "runner bytes");
writeFileSync(ptopFile, "ptop bytes");
const key = generateReleaseKey();
const trusted = [trustedKeyFromPem(key.publicPem)];
const manifestText = serializeManifest(
  buildManifest("1.2.3", [
    { name: "runner", arch: "amd64", path: runnerFile },
    { name: "ptop", arch: "amd64", path: ptopFile },
    { name: "runner", arch: "arm64", path: runnerFile },
    { name: "ptop", arch: "arm64", path: ptopFile },
  ]),
);
const bundle = await signManifest(manifestText, key.privatePem);

describe("release manifest", () => {
  test("records sha256 and size of each binary, sorted, and round-trips through the strict parser", () => {
    const m = parseManifest(manifestText);
    expect(m.binaries.map((b) => `${b.name}/${b.arch}`)).toEqual(["ptop/amd64", "ptop/arm64", "runner/amd64", "runner/arm64"]);
    const ptop = m.binaries.find((b) => b.name === "ptop")!;
    expect(ptop.sha256).toBe(new Bun.CryptoHasher("sha256").update("ptop bytes").digest("hex"));
    expect(ptop.size).toBe(10);
    expect(serializeManifest(m)).toBe(manifestText);
  });

  test("refuses unknown keys, bad digests, unknown arches and duplicates", () => {
    const m = JSON.parse(manifestText);
    expect(() => parseManifest(JSON.stringify({ ...m, comment: "x" }))).toThrow(/malformed/);
    const bad = structuredClone(m);
    bad.binaries[0].sha256 = "ABC";
    expect(() => parseManifest(JSON.stringify(bad))).toThrow(/malformed/);
    const arch = structuredClone(m);
    arch.binaries[0].arch = "riscv64";
    expect(() => parseManifest(JSON.stringify(arch))).toThrow(/malformed/);
    const dup = structuredClone(m);
    dup.binaries.push(dup.binaries[0]);
    expect(() => parseManifest(JSON.stringify(dup))).toThrow(/twice/);
  });
});

describe("sigstore bundle", () => {
  test("is a key-based message-signature bundle with no transparency log entry", () => {
    const b = JSON.parse(bundle);
    expect(b.mediaType).toStartWith("application/vnd.dev.sigstore.bundle");
    expect(b.verificationMaterial.publicKey.hint).toBe(trusted[0]!.hint);
    expect(b.verificationMaterial.tlogEntries ?? []).toEqual([]);
    expect(b.messageSignature.messageDigest.algorithm).toBe("SHA2_256");
  });

  test("verifies offline against the trusted key", () => {
    const r = verifyManifest(Buffer.from(manifestText), bundle, trusted);
    expect(r.keyHint).toBe(trusted[0]!.hint);
    expect(r.manifest.version).toBe("1.2.3");
  });

  test("a manifest changed by one digit after signing is refused", () => {
    const tampered = manifestText.replace(/"sha256": "(.)/, (_m, c: string) => `"sha256": "${c === "0" ? "1" : "0"}`);
    expect(tampered).not.toBe(manifestText);
    expect(() => verifyManifest(Buffer.from(tampered), bundle, trusted)).toThrow(ManifestSignatureError);
  });

  test("a signature by another key is refused, even when the bundle names that key", async () => {
    const other = generateReleaseKey();
    const forged = await signManifest(manifestText, other.privatePem);
    expect(() => verifyManifest(Buffer.from(manifestText), forged, trusted)).toThrow(/does not trust/);
    // ...and relabelling the forged bundle with the trusted key's hint does not help.
    const relabelled = JSON.parse(forged);
    relabelled.verificationMaterial.publicKey.hint = trusted[0]!.hint;
    expect(() => verifyManifest(Buffer.from(manifestText), JSON.stringify(relabelled), trusted)).toThrow(/does not verify/);
  });

  test("a corrupted signature or a malformed bundle is refused", () => {
    const b = JSON.parse(bundle);
    const sig = Buffer.from(b.messageSignature.signature, "base64");
    sig.writeUInt8(sig.readUInt8(sig.length - 1) ^ 1, sig.length - 1);
    b.messageSignature.signature = sig.toString("base64");
    expect(() => verifyManifest(Buffer.from(manifestText), JSON.stringify(b), trusted)).toThrow(ManifestSignatureError);
    expect(() => verifyManifest(Buffer.from(manifestText), "{}", trusted)).toThrow(/malformed/);
    expect(() => verifyManifest(Buffer.from(manifestText), "not json", trusted)).toThrow(/malformed/);
  });

  test("no trusted key means nothing verifies", () => {
    expect(() => verifyManifest(Buffer.from(manifestText), bundle, [])).toThrow(/does not trust/);
  });

  test("release keys must be ECDSA P-256", () => {
    const { publicKey } = require("node:crypto").generateKeyPairSync("ed25519");
    expect(() => trustedKeyFromPem(publicKey.export({ type: "spki", format: "pem" }))).toThrow(/P-256/);
  });
});
