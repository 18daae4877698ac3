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

describe("createLogger", () => {
  // A real logger writing to a real stdout, in its own process, as every role logs.
  test("a token is redacted in every field at any depth: nested objects, arrays, bindings, errors, keys", () => {
    const script = `
      import { createLogger } from ${JSON.stringify(`${import.meta.dir}/../../src/log.ts`)};
      const t = process.argv.at(-1);
      const log = createLogger("test", "info", { sync: true }).child({ org: t });
      log.info({ request: { workload: t, tags: ["a", "x_" + t], deep: { deeper: { version: t } } }, [t]: 1 }, "queued");
      log.error({ err: new Error("bad token " + t) }, "failed");
    `;
    const token = "rpcap_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjK";
    const r = Bun.spawnSync([process.execPath, "-e", script, token], { stdout: "pipe", stderr: "pipe" });
    const out = r.stdout.toString();
    expect(r.stderr.toString()).toBe("");
    expect(out.split("\n").filter(Boolean)).toHaveLength(2);
    expect(out).toContain("rpcap_[REDACTED]");
    expect(out).not.toContain("AbCdEfGhIjKlMnOp");
  });
});
