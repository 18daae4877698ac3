// Image signatures in the cosign/Sigstore key-based format with the release key, and the same key
// in cosign's encrypted private-key format: what is signed, what a verifier refuses.
import { describe, expect, test } from "bun:test";
import { createPrivateKey, createPublicKey } from "node:crypto";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkSignature, repositoryOf, sha256Digest, signatureArtifact, signaturePayload, signatureTag, signPayload, SIGNATURE_ANNOTATION, SIMPLESIGNING_MEDIA_TYPE } from "../../src/release/image-signature.ts";
import { generateReleaseKey } from "../../src/release/sign.ts";
import { fromSigstorePrivateKey, SIGSTORE_KEY_PEM_TYPE, toSigstorePrivateKey } from "../../src/release/sigstore-key.ts";
import { REPO_ROOT } from "../helpers/runner-bin.ts";

const key = generateReleaseKey();
const priv = createPrivateKey(key.privatePem);
const pub = createPublicKey(key.publicPem);
const DIGEST = sha256Digest(Buffer.from("a manifest"));
const REF = "127.0.0.1:5000/runner/profiler:0.1.0";

function signed(ref = REF, digest = DIGEST, k = priv) {
  const payload = signaturePayload(ref, digest);
  return { payload, signatureB64: signPayload(payload, k) };
}

describe("image signature (cosign simple signing)", () => {
  test("the payload is cosign's: critical identity, image digest and type; optional null", () => {
    expect(JSON.parse(signaturePayload(REF, DIGEST).toString())).toEqual({
      critical: { identity: { "docker-reference": REF }, image: { "docker-manifest-digest": DIGEST }, type: "cosign container image signature" },
      optional: null,
    });
    expect(signatureTag(DIGEST)).toBe(`sha256-${DIGEST.slice(7)}.sig`);
    expect(() => signatureTag("sha256:abc")).toThrow();
  });

  test("the artifact is an OCI manifest whose one layer is the payload, signature in its annotation", () => {
    const s = signed();
    const art = signatureArtifact(s.payload, s.signatureB64);
    const m = JSON.parse(art.manifest.toString());
    expect(m.layers).toEqual([{ mediaType: SIMPLESIGNING_MEDIA_TYPE, size: s.payload.length, digest: sha256Digest(s.payload), annotations: { [SIGNATURE_ANNOTATION]: s.signatureB64 } }]);
    expect(m.config.digest).toBe(sha256Digest(art.blobs[1]!));
  });

  test("a signature by the release key over this digest and repository verifies; pulling by another tag of the repository too", () => {
    expect(checkSignature(signed(), pub, DIGEST, "127.0.0.1:5000/runner/profiler")).toBeUndefined();
    expect(repositoryOf("127.0.0.1:5000/runner/profiler@sha256:00")).toBe("127.0.0.1:5000/runner/profiler");
    expect(repositoryOf("registry.example.com/runner/profiler")).toBe("registry.example.com/runner/profiler");
  });

  test("refused: another key, another digest, another repository, a changed payload, no signature", () => {
    const repo = "127.0.0.1:5000/runner/profiler";
    const other = createPrivateKey(generateReleaseKey().privatePem);
    expect(checkSignature(signed(REF, DIGEST, other), pub, DIGEST, repo)).toContain("does not verify with the release key");
    expect(checkSignature(signed(REF, sha256Digest(Buffer.from("other"))), pub, DIGEST, repo)).toContain("the signature is for sha256:");
    expect(checkSignature(signed("127.0.0.1:5000/evil/profiler:0.1.0"), pub, DIGEST, repo)).toContain("not the repository");
    const s = signed();
    const changed = Buffer.from(s.payload.toString().replace("0.1.0", "0.1.1"));
    expect(checkSignature({ payload: changed, signatureB64: s.signatureB64 }, pub, DIGEST, repo)).toContain("does not verify");
    expect(checkSignature({ payload: s.payload, signatureB64: undefined }, pub, DIGEST, repo)).toContain("no signature annotation");
  });
});

describe("the release key in cosign's encrypted format", () => {
  test("round trip: the same P-256 key comes back; a wrong passphrase is refused", async () => {
    const text = await toSigstorePrivateKey(key.privatePem, Buffer.from("s3cret"));
    expect(text).toStartWith(`-----BEGIN ${SIGSTORE_KEY_PEM_TYPE}-----\n`);
    const env = JSON.parse(Buffer.from(text.split("\n").slice(1, -2).join(""), "base64").toString());
    expect(env.kdf).toMatchObject({ name: "scrypt", params: { N: 32768, r: 8, p: 1 } });
    expect(env.cipher.name).toBe("nacl/secretbox");
    expect(await fromSigstorePrivateKey(text, Buffer.from("s3cret"))).toBe(key.privatePem);
    expect(fromSigstorePrivateKey(text, Buffer.from("wrong"))).rejects.toThrow("wrong passphrase");
  }, 60_000);

  test("sign-manifest.ts cosign-key writes it mode 0600", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cosign-key-"));
    writeFileSync(join(dir, "k.pem"), key.privatePem);
    writeFileSync(join(dir, "pass"), "s3cret\n");
    const r = Bun.spawnSync([process.execPath, join(REPO_ROOT, "image/sign-manifest.ts"), "cosign-key", "--key", join(dir, "k.pem"), "--passphrase-file", join(dir, "pass"), "--out", join(dir, "cosign.key")], { stderr: "pipe" });
    expect(r.stderr.toString()).toBe("");
    expect(statSync(join(dir, "cosign.key")).mode & 0o777).toBe(0o600);
    expect(await fromSigstorePrivateKey(readFileSync(join(dir, "cosign.key"), "utf8"), Buffer.from("s3cret"))).toBe(key.privatePem);
  }, 60_000); // a process start plus two scrypt runs, on a loaded machine
});
