import { describe, expect, test } from "bun:test";
import { redactSecrets } from "../../src/log.ts";
import { BOOTSTRAP_TOKEN_PREFIX, CAPTURE_TOKEN_PREFIX, generateToken } from "../../src/protocol/token-format.ts";

describe("redactSecrets", () => {
  test("removes capture and bootstrap tokens from free text", () => {
    const out = redactSecrets("auth rpcap_AbC123xyz and rpboot_ZZ9 seen");
    expect(out).not.toContain("AbC123xyz");
    expect(out).not.toContain("ZZ9");
  });
  // Each variant the attack found logged verbatim, and the ones next to it: a client chooses how
  // its text arrives, so the redactor goes by the token's shape.
  const token = generateToken(CAPTURE_TOKEN_PREFIX);
  const boot = generateToken(BOOTSTRAP_TOKEN_PREFIX);
  const body = token.slice("rpcap_".length);
  const variants: Array<[string, string]> = [
    ["upper-case prefix", `workload ${token.toUpperCase()} here`],
    ["mixed-case prefix", `v=RpCaP_${body}`],
    ["bootstrap prefix in upper case", `RPBOOT_${boot.slice(7)}`],
    ["URL-encoded underscore", `/x?q=rpcap%5F${body}&y=1`],
    ["URL-encoded underscore, lower-case hex", `rpcap%5f${body}`],
    ["URL-encoded twice", `rpcap%255F${body}`],
    ["token body alone", `version 2.4.1 ${body} end`],
    ["body without its checksum", `env=${body.slice(0, 43)};`],
    ["body after a URL-encoded separator", `q=x%3D${body}`],
    ["body after a JSON escape", JSON.stringify({ v: `\n${body}\u001b${body}` })],
    ["body glued by another separator", `rpcap-${body}`],
  ];
  for (const [name, text] of variants) {
    test(`redacts ${name}`, () => {
      const out = redactSecrets(text);
      expect(out).toContain("[REDACTED]");
      expect(out).not.toContain(body.slice(0, 20));
      expect(out).not.toContain(boot.slice(7, 27));
      expect(out).not.toContain(body.slice(20, 43));
    });
  }
  test("leaves what is not a token readable: digests, UUIDs, short words", () => {
    const text = "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 id 0193b1e2-7c3a-7000-8000-0123456789ab rpcap docs";
    expect(redactSecrets(text)).toBe(text);
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
      log.info({ request: { workload: t, tags: ["a", "x_" + t], deep: { deeper: { version: t } } }, [t]: 1, upper: t.toUpperCase(), encoded: t.replace("_", "%5F"), bare: t.slice(6) }, "queued");
      log.error({ err: new Error("bad token " + t) }, "failed");
    `;
    const token = "rpcap_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjK";
    const r = Bun.spawnSync([process.execPath, "-e", script, token], { stdout: "pipe", stderr: "pipe" });
    const out = r.stdout.toString();
    expect(r.stderr.toString()).toBe("");
    expect(out.split("\n").filter(Boolean)).toHaveLength(2);
    expect(out).toContain("rpcap_[REDACTED]");
    expect(out).not.toContain("AbCdEfGhIjKlMnOp");
    expect(out).not.toContain("ABCDEFGHIJKLMNOP");
  });
});
