// The redactor scrubs every credential value the Agent has read, in the spellings it travels in.
import { describe, expect, test } from "bun:test";
import { Redactor } from "../../src/agent/credentials/redactor.ts";

describe("Redactor", () => {
  test("scrubs raw, URL-encoded and base64 spellings", () => {
    const r = new Redactor();
    const secret = "s3cr3t/with+chars=";
    r.add(secret);
    const text = `raw ${secret} url ${encodeURIComponent(secret)} b64 ${Buffer.from(secret).toString("base64")}`;
    expect(r.scrub(text)).toBe("raw [REDACTED] url [REDACTED] b64 [REDACTED]");
  });

  test("a value containing another is removed whole", () => {
    const r = new Redactor();
    r.add("abcdef");
    r.add("abcdefghij");
    expect(r.scrub("x abcdefghij y")).toBe("x [REDACTED] y");
  });

  test("empty and very short values are ignored (they would scrub ordinary words)", () => {
    const r = new Redactor();
    r.add(undefined);
    r.add("");
    r.add("abc");
    expect(r.scrub("abc abc")).toBe("abc abc");
  });
});
