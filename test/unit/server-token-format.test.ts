import { describe, expect, test } from "bun:test";
import {
  BOOTSTRAP_TOKEN_PREFIX,
  CAPTURE_TOKEN_PREFIX,
  generateToken,
  hashToken,
  isWellFormedToken,
} from "../../src/protocol/token-format.ts";

describe("token format", () => {
  test("capture tokens start with rpcap_, are unique and validate", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const t = generateToken(CAPTURE_TOKEN_PREFIX);
      expect(t).toMatch(/^rpcap_[0-9A-Za-z]{49}$/);
      expect(isWellFormedToken(t, CAPTURE_TOKEN_PREFIX)).toBe(true);
      seen.add(t);
    }
    expect(seen.size).toBe(200);
  });

  test("a bootstrap token is not a capture token and the reverse", () => {
    const boot = generateToken(BOOTSTRAP_TOKEN_PREFIX);
    expect(boot.startsWith("rpboot_")).toBe(true);
    expect(isWellFormedToken(boot, BOOTSTRAP_TOKEN_PREFIX)).toBe(true);
    expect(isWellFormedToken(boot, CAPTURE_TOKEN_PREFIX)).toBe(false);
    const cap = generateToken(CAPTURE_TOKEN_PREFIX);
    expect(isWellFormedToken(cap, BOOTSTRAP_TOKEN_PREFIX)).toBe(false);
    // same body, other prefix: the checksum covers the prefix
    expect(isWellFormedToken(cap.replace("rpcap_", "rpboot_"), BOOTSTRAP_TOKEN_PREFIX)).toBe(false);
  });

  test("every single-character change is caught by the checksum or the shape", () => {
    const t = generateToken(CAPTURE_TOKEN_PREFIX);
    const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let caught = 0;
    let tried = 0;
    for (let i = 6; i < t.length; i++) {
      const c = alphabet[(alphabet.indexOf(t[i]!) + 1) % 62]!;
      tried++;
      if (!isWellFormedToken(t.slice(0, i) + c + t.slice(i + 1), CAPTURE_TOKEN_PREFIX)) caught++;
    }
    expect(caught).toBe(tried);
  });

  test("wrong length, characters or empty input are refused", () => {
    const t = generateToken(CAPTURE_TOKEN_PREFIX);
    for (const bad of ["", "rpcap_", t.slice(0, -1), `${t}0`, `${t.slice(0, 10)}-${t.slice(11)}`, ` ${t.slice(1)}`, t.toUpperCase()]) {
      expect(isWellFormedToken(bad, CAPTURE_TOKEN_PREFIX)).toBe(false);
    }
  });

  test("the hash is SHA-256 hex of the whole token", () => {
    const t = generateToken(CAPTURE_TOKEN_PREFIX);
    expect(hashToken(t)).toBe(new Bun.CryptoHasher("sha256").update(t).digest("hex"));
    expect(hashToken(t)).not.toContain(t.slice(6, 20));
  });
});
