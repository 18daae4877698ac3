// The boot's signature check on real files: a release build verifies runner and ptop against the
// signed manifest beside runner and refuses, naming the binary, when either differs.
import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkSignature, checkSignatureWith, type SignatureInputs } from "../../src/profiler/boot/signature.ts";
import { trustedKeyFromPem } from "../../src/release/keys.ts";
import { BUNDLE_FILE, MANIFEST_FILE, serializeManifest } from "../../src/release/manifest.ts";
import { buildManifest, generateReleaseKey, signManifest } from "../../src/release/sign.ts";

const key = generateReleaseKey();

async function release(arch: "amd64" | "arm64" = "amd64"): Promise<SignatureInputs> {
  const dir = mkdtempSync(join(tmpdir(), "sig-boot-"));
  const selfPath = join(dir, "runner");
  const collectorPath = join(dir, "ptop");
  writeFileSync(selfPath, "the runner we shipped");
  writeFileSync(collectorPath, "the ptop we shipped");
  const text = serializeManifest(buildManifest("2.0.0", [
    { name: "runner", arch, path: selfPath },
    { name: "ptop", arch, path: collectorPath },
  ]));
  writeFileSync(join(dir, MANIFEST_FILE), text);
  writeFileSync(join(dir, BUNDLE_FILE), await signManifest(text, key.privatePem));
  return { selfPath, collectorPath, manifestDir: dir, arch: "amd64", releaseKey: trustedKeyFromPem(key.publicPem), allowUnsignedEnv: undefined, allowUnsignedMounted: false };
}

const fails = (i: SignatureInputs) => checkSignatureWith(i).filter((f) => f.status === "fail");

describe("signature boot check (release build)", () => {
  test("untouched binaries pass, both of them", async () => {
    const f = checkSignatureWith(await release());
    expect(f.map((x) => [x.check, x.subject, x.status])).toEqual([
      ["supervisor", "runner", "pass"],
      ["collector", "ptop", "pass"],
    ]);
  });

  test("a tampered ptop is refused, naming ptop and its path, with a fix and a cost", async () => {
    const i = await release();
    appendFileSync(i.collectorPath, "\x90");
    const f = fails(i);
    expect(f).toHaveLength(1);
    expect(f[0]!.subject).toBe("ptop");
    expect(f[0]!.message).toContain(`ptop at ${i.collectorPath} is not the signed release binary`);
    expect(f[0]!.fix).toContain("reinstall");
    expect(f[0]!.cost).toContain("five capabilities");
  });

  test("a replaced runner is refused, naming runner", async () => {
    const i = await release();
    writeFileSync(i.selfPath, "the runner we shipped!");
    expect(fails(i).map((f) => f.subject)).toEqual(["runner"]);
  });

  test("a same-size modification is caught by the digest", async () => {
    const i = await release();
    writeFileSync(i.collectorPath, "the ptop we shippeD");
    expect(fails(i).map((f) => f.subject)).toEqual(["ptop"]);
  });

  test("a manifest rewritten to match a tampered ptop is refused (the signature no longer holds)", async () => {
    const i = await release();
    writeFileSync(i.collectorPath, "evil ptop");
    const text = serializeManifest(buildManifest("2.0.0", [
      { name: "runner", arch: "amd64", path: i.selfPath },
      { name: "ptop", arch: "amd64", path: i.collectorPath },
    ]));
    writeFileSync(join(i.manifestDir, MANIFEST_FILE), text);
    const f = fails(i);
    expect(f).toHaveLength(1);
    expect(f[0]!.message).toMatch(/not signed by the release key/);
  });

  test("a manifest re-signed with another key is refused", async () => {
    const i = await release();
    const text = serializeManifest(buildManifest("2.0.0", [{ name: "ptop", arch: "amd64", path: i.collectorPath }]));
    writeFileSync(join(i.manifestDir, MANIFEST_FILE), text);
    writeFileSync(join(i.manifestDir, BUNDLE_FILE), await signManifest(text, generateReleaseKey().privatePem));
    expect(fails(i)[0]!.message).toMatch(/does not trust/);
  });

  test("a missing manifest or bundle refuses the boot of a release build", async () => {
    const i = await release();
    rmSync(join(i.manifestDir, BUNDLE_FILE));
    const f = fails(i);
    expect(f).toHaveLength(1);
    expect(f[0]!.message).toContain("signed release manifest is missing");
  });

  test("a manifest for another architecture does not vouch for this one", async () => {
    const i = await release("arm64");
    const f = fails(i);
    expect(f.map((x) => x.subject)).toEqual(["runner", "ptop"]);
    expect(f[0]!.message).toContain("has no runner for amd64");
  });

  test("a bind-mounted /etc/runner/allow-unsigned skips verification with a loud warning", async () => {
    const i = await release();
    appendFileSync(i.collectorPath, "x");
    const w = checkSignatureWith({ ...i, allowUnsignedMounted: true });
    expect(w).toHaveLength(1);
    expect(w[0]!.status).toBe("warn");
    expect(w[0]!.message).toStartWith("UNSIGNED: /etc/runner/allow-unsigned is mounted");
  });

  test("RUNNER_ALLOW_UNSIGNED (which an image's ENV could carry) is refused, whatever its value, naming the mount instead", async () => {
    const i = await release();
    appendFileSync(i.collectorPath, "x");
    for (const v of ["1", "yes"]) {
      const f = checkSignatureWith({ ...i, allowUnsignedEnv: v });
      expect(f).toHaveLength(1);
      expect(f[0]).toMatchObject({ status: "fail", check: "env", subject: "RUNNER_ALLOW_UNSIGNED" });
      expect(f[0]!.fix).toContain("/etc/runner/allow-unsigned");
    }
  });
});

describe("signature boot check (development build)", () => {
  test("without a compiled-in release key the boot warns that nothing is verified", () => {
    // Running from sources is a development build: no RUNNER_RELEASE_PUBLIC_KEY was defined.
    const f = checkSignature({ RUNNER_COLLECTOR_PATH: "/bin/true" });
    expect(f).toHaveLength(1);
    expect(f[0]!.status).toBe("warn");
    expect(f[0]!.message).toContain("UNSIGNED: development build");
  });
});
