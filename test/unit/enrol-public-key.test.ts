// Enrolment refuses a public key unless it can only mean one ed25519 key (issue 29 item 9): each
// case the attack sent and the ones beside it, against the validator and over real HTTP; and
// control characters in the identity's other fields (item 5).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sodium from "libsodium-wrappers";
import { createLogger } from "../../src/log.ts";
import { ed25519PublicKeyProblem } from "../../src/protocol/ed25519-public-key.ts";
import { ENROL_PATH, TENANT_HEADER } from "../../src/protocol/enrol.ts";
import { BOOTSTRAP_TOKEN_PREFIX, generateToken, hashToken } from "../../src/protocol/token-format.ts";
import { startServer, type RunningServer } from "../../src/server/start-server.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const b64 = (k: Uint8Array) => Buffer.from(k).toString("base64");
const bytes = (first: number[], fill = 0, last?: number) => {
  const k = new Uint8Array(32).fill(fill);
  k.set(first);
  if (last !== undefined) k[31] = last;
  return k;
};

let valid: string;
beforeAll(async () => {
  await sodium.ready;
  valid = b64(sodium.crypto_sign_keypair().publicKey);
});

// [case, key, words the refusal must contain]
const refused = (): Array<[string, string, string]> => [
  ["data after the padding", `${valid}AAAA`, "standard base64"],
  ["spare bits set in the last character", `${valid.slice(0, 42)}${B64[B64.indexOf(valid[42]!) ^ 1]}=`, "canonical base64"],
  ["URL-safe alphabet", b64(bytes([0xfb, 0xff])).replace(/\+/g, "-").replace(/\//g, "_"), "standard base64"],
  ["no padding", valid.slice(0, 43), "standard base64"],
  ["31 bytes", b64(new Uint8Array(31)), "standard base64"],
  ["33 bytes", b64(new Uint8Array(33)), "standard base64"],
  ["all zeros (small order)", b64(new Uint8Array(32)), "small order"],
  ["the identity point", b64(bytes([1])), "identity"],
  ["the identity with its sign bit set", b64(bytes([1], 0, 0x80)), "prime-order group"],
  ["the point of order 2 (y = -1)", b64(bytes([0xec], 0xff, 0x7f)), "prime-order group"],
  ["y not reduced (y = p + 2)", b64(bytes([0xef], 0xff, 0x7f)), "canonical encoding"],
  ["off the curve", b64(bytes([2])), "prime-order group"],
];

describe("ed25519PublicKeyProblem", () => {
  test("a key libsodium made is accepted", async () => {
    expect(await ed25519PublicKeyProblem(valid)).toBeUndefined();
  });
  test("each hostile key is refused, saying what is wrong with it", async () => {
    for (const [name, key, words] of refused()) {
      const problem = await ed25519PublicKeyProblem(key);
      expect({ name, problem: problem?.includes(words) ? words : problem }).toEqual({ name, problem: words });
    }
  });
});

describe("POST /api/profiler/enroll", () => {
  let dir: string;
  let store: SqliteStore;
  let server: RunningServer;
  let bootstrap: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "runner-enrol-key-"));
    store = new SqliteStore(join(dir, "runner.db"));
    server = await startServer({ hostname: "127.0.0.1", port: 0, store, logger: createLogger("test", "silent") });
    await store.createOrg("acme");
    await store.setProfilerEnabled("acme", true);
    bootstrap = generateToken(BOOTSTRAP_TOKEN_PREFIX);
    await store.addBootstrapToken("acme", hashToken(bootstrap));
  });
  afterAll(async () => {
    await server.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("400 naming public_key for each hostile key; nothing is enrolled; a good key still enrols", async () => {
    const enrol = async (over: Record<string, string>) => {
      const r = await fetch(`${server.url}${ENROL_PATH}`, {
        method: "POST",
        headers: { "content-type": "application/json", [TENANT_HEADER]: "acme", authorization: `Bearer ${bootstrap}` },
        body: JSON.stringify({ instance_id: "node-x", class: "profiler", public_key: valid, ...over }),
      });
      return { status: r.status, error: ((await r.json()) as { error?: string }).error ?? "" };
    };
    for (const [name, key, words] of refused()) {
      const r = await enrol({ public_key: key });
      expect({ name, status: r.status, named: r.error.startsWith("public_key: ") && r.error.includes(words) }).toEqual({ name, status: 400, named: true });
    }
    // The identity's other fields follow the text rule of a capture's fields.
    for (const [field, value] of [["instance_id", "node\u001b[2K"], ["version", "1.0\r"], ["arch", "x86\u0000"]] as const) {
      const r = await enrol({ [field]: value });
      expect({ status: r.status, error: r.error.split(" (")[0] }).toEqual({ status: 400, error: `${field}: contains a control character` });
    }
    expect(await store.listInstances("acme")).toEqual([]);
    expect((await enrol({ instance_id: "node-good" })).status).toBe(200);
  });
});
