// image/sign-manifest.ts as release managers and users run it: keygen, sign, verify (offline).
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { appendFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUNDLE_FILE, MANIFEST_FILE } from "../../src/release/manifest.ts";
import { REPO_ROOT } from "../helpers/runner-bin.ts";

// Each test starts the tool as a process; on a loaded machine that alone can take seconds.
setDefaultTimeout(60_000);

const TOOL = join(REPO_ROOT, "image/sign-manifest.ts");
const run = (...args: string[]) => {
  const r = Bun.spawnSync([process.execPath, TOOL, ...args], { stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
};

describe("image/sign-manifest.ts", () => {
  const dir = mkdtempSync(join(tmpdir(), "sign-tool-"));
  const keys = join(dir, "keys");
  const out = join(dir, "release");
  const runner = join(dir, "runner");
  const ptop = join(dir, "ptop");
  writeFileSync(runner, "runner-amd64");
  writeFileSync(ptop, "ptop-amd64");

  test("keygen writes a private key only its owner can read, and the public key", () => {
    const r = run("keygen", keys);
    expect(r.code).toBe(0);
    expect(statSync(join(keys, "release-key.pem")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(keys, "release-key.pub.pem"), "utf8")).toContain("BEGIN PUBLIC KEY");
  });

  test("sign writes the manifest and its bundle; verify accepts untouched binaries", () => {
    const s = run("sign", "--key", join(keys, "release-key.pem"), "--version", "9.9.9", "--out", out, `runner/amd64=${runner}`, `ptop/amd64=${ptop}`);
    expect(s.code).toBe(0);
    expect(JSON.parse(readFileSync(join(out, MANIFEST_FILE), "utf8")).version).toBe("9.9.9");
    expect(JSON.parse(readFileSync(join(out, BUNDLE_FILE), "utf8")).messageSignature).toBeDefined();
    const v = run("verify", "--pub", join(keys, "release-key.pub.pem"), out, `runner/amd64=${runner}`, `ptop/amd64=${ptop}`);
    expect(v.out).toContain("OK       ptop/amd64");
    expect(v.code).toBe(0);
  });

  test("verify names a modified binary and exits 1", () => {
    const copy = join(dir, "ptop-modified");
    writeFileSync(copy, readFileSync(ptop));
    appendFileSync(copy, "!");
    const v = run("verify", "--pub", join(keys, "release-key.pub.pem"), out, `ptop/amd64=${copy}`);
    expect(v.out).toContain(`MISMATCH ptop/amd64 ${copy}`);
    expect(v.code).toBe(1);
  });

  test("verify refuses a manifest signed by another key", () => {
    run("keygen", join(dir, "other"));
    const v = run("verify", "--pub", join(dir, "other/release-key.pub.pem"), out);
    expect(v.err).toContain("does not trust");
    expect(v.code).toBe(1);
  });

  test("bad binary specs are refused", () => {
    const s = run("sign", "--key", join(keys, "release-key.pem"), "--version", "1", "--out", out, `ptop/riscv=${ptop}`);
    expect(s.code).toBe(1);
    expect(s.err).toContain("NAME/ARCH=PATH");
  });
});
