// Capture-token authentication against a real SQLite store, and the constant-time comparison's
// edge: a stored hash of another length (a padded CHAR column, a store bug) is a refusal, not a
// thrown RangeError that would surface as a 500.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { authenticateCaptureToken } from "../../src/server/tokens/authenticate.ts";
import { sameSecret } from "../../src/server/same-secret.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import { CAPTURE_TOKEN_PREFIX, generateToken, hashToken } from "../../src/protocol/token-format.ts";

let dir: string;
let store: SqliteStore;
const token = generateToken(CAPTURE_TOKEN_PREFIX);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "runner-auth-"));
  store = new SqliteStore(join(dir, "runner.db"));
  await store.createOrg("acme");
  await store.addCaptureToken("acme", "ci", hashToken(token));
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("authenticateCaptureToken", () => {
  test("the issued token authenticates; another well-formed one is refused", async () => {
    const ok = await authenticateCaptureToken(store, token);
    expect(ok.ok && ok.principal.tokenName).toBe("ci");
    const other = await authenticateCaptureToken(store, generateToken(CAPTURE_TOKEN_PREFIX));
    expect(other).toEqual({ ok: false, error: "invalid or revoked capture token" });
  });

  test("a stored hash of another length is refused, not thrown", async () => {
    const padded = { ...store, findCaptureToken: async (h: string) => ({ ...(await store.findCaptureToken(h))!, tokenHash: `${h} ` }) };
    expect(await authenticateCaptureToken(padded as unknown as SqliteStore, token)).toEqual({ ok: false, error: "invalid or revoked capture token" });
  });

  test("sameSecret: equal, different, and different lengths", () => {
    expect(sameSecret("abc", "abc")).toBe(true);
    expect(sameSecret("abc", "abd")).toBe(false);
    expect(sameSecret("abc", "abcd")).toBe(false);
    expect(sameSecret("", "")).toBe(true);
  });
});
