import { describe, expect, test } from "bun:test";
import { redactSecrets } from "../../src/log.ts";

describe("redactSecrets", () => {
  test("removes capture and bootstrap tokens from free text", () => {
    const out = redactSecrets("auth rpcap_AbC123xyz and rpboot_ZZ9 seen");
    expect(out).not.toContain("AbC123xyz");
    expect(out).not.toContain("ZZ9");
  });
  test("removes a token passed in a query string", () => {
    expect(redactSecrets("/api/profiling/captures?token=secret&x=1")).toBe("/api/profiling/captures?token=[REDACTED]&x=1");
  });
});
