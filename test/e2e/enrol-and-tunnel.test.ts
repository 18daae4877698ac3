// Enrolment and the tunnel handshake over real HTTP and a real WebSocket, on a real SQLite file:
// every refusal of the reference document's enrolment rules, and who may open a tunnel.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sodium from "libsodium-wrappers";
import { createLogger } from "../../src/log.ts";
import { ENROL_PATH, TENANT_HEADER } from "../../src/protocol/enrol.ts";
import { BOOTSTRAP_TOKEN_PREFIX, CAPTURE_TOKEN_PREFIX, generateToken, hashToken } from "../../src/protocol/token-format.ts";
import { HEARTBEAT_DEAD_MS, HELLO_MAX_BYTES, handshakeMessage, type ServerMessage } from "../../src/protocol/tunnel.ts";
import { MAX_TUNNEL_FRAME_BYTES } from "../../src/protocol/profile-limits.ts";
import { clientFrame, rawTunnel } from "../helpers/raw-tunnel.ts";
import { until } from "../helpers/until.ts";
import { freePort } from "../../src/demo/machine.ts";
import { startServer, type RunningServer } from "../../src/server/start-server.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";

let dir: string;
let store: SqliteStore;
let server: RunningServer;
let bootstrap: string;
let keys: { publicKey: Uint8Array; privateKey: Uint8Array };

beforeEach(async () => {
  await sodium.ready;
  keys = sodium.crypto_sign_keypair();
  dir = mkdtempSync(join(tmpdir(), "runner-enrol-"));
  store = new SqliteStore(join(dir, "runner.db"));
  server = await startServer({
    hostname: "127.0.0.1",
    port: 0,
    tunnelListen: { hostname: "127.0.0.1", port: await freePort() },
    store,
    logger: createLogger("test", "silent"),
  });
  await store.createOrg("acme");
  await store.setProfilerEnabled("acme", true);
  bootstrap = generateToken(BOOTSTRAP_TOKEN_PREFIX);
  await store.addBootstrapToken("acme", hashToken(bootstrap));
});
afterEach(async () => {
  await server.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const b64 = (k: Uint8Array) => Buffer.from(k).toString("base64");
const enrolBody = (over: Record<string, unknown> = {}) => ({ instance_id: "node-a", class: "profiler", public_key: b64(keys.publicKey), ...over });

function enrol(init: { tenant?: string | null; token?: string | null; body?: unknown; raw?: string } = {}) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const tenant = init.tenant === undefined ? "acme" : init.tenant;
  const token = init.token === undefined ? bootstrap : init.token;
  if (tenant !== null) headers[TENANT_HEADER] = tenant;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return fetch(`${server.url}${ENROL_PATH}`, { method: "POST", headers, body: init.raw ?? JSON.stringify(init.body ?? enrolBody()) });
}

describe("enrolment", () => {
  test("403 while the organization has not enabled the Profiler, before the token or the body is read", async () => {
    await store.setProfilerEnabled("acme", false);
    for (const r of [await enrol(), await enrol({ token: null }), await enrol({ token: "garbage", raw: "{not json" })]) {
      expect(r.status).toBe(403);
    }
    // an unknown organization looks the same from outside
    expect((await enrol({ tenant: "nobody-here", token: null, raw: "" })).status).toBe(403);
    expect((await enrol({ tenant: null })).status).toBe(403);
  });

  test("401 for a missing, malformed, other-kind or other-organization bootstrap token", async () => {
    expect((await enrol({ token: null })).status).toBe(401);
    expect((await enrol({ token: "rpboot_short" })).status).toBe(401);
    expect((await enrol({ token: generateToken(CAPTURE_TOKEN_PREFIX) })).status).toBe(401);
    expect((await enrol({ token: generateToken(BOOTSTRAP_TOKEN_PREFIX) })).status).toBe(401);
    await store.createOrg("other");
    await store.setProfilerEnabled("other", true);
    expect((await enrol({ tenant: "other" })).status).toBe(401);
  });

  test("400 names the offending field", async () => {
    const bad = async (body: unknown, field: string) => {
      const r = await enrol({ body });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: string }).error).toContain(field);
    };
    await bad(enrolBody({ class: "root" }), "class");
    await bad(enrolBody({ public_key: "AAAA" }), "public_key");
    await bad(enrolBody({ public_key: b64(new Uint8Array(40)) }), "public_key");
    await bad(enrolBody({ comment: "x" }), "comment");
    const { instance_id: _, ...noId } = enrolBody();
    await bad(noId, "instance_id");
    expect((await enrol({ raw: "{" })).status).toBe(400);
  });

  test("re-enrolment of the same identity is idempotent; another key for the instance id is refused", async () => {
    const first = await enrol();
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ instance_id: "node-a", already_enrolled: false });
    const again = await enrol();
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ instance_id: "node-a", already_enrolled: true });
    const other = sodium.crypto_sign_keypair();
    expect((await enrol({ body: enrolBody({ public_key: b64(other.publicKey) }) })).status).toBe(409);
    expect((await enrol({ body: enrolBody({ class: "agent" }) })).status).toBe(409);
  });
});

/** Opens the tunnel, answers the challenge with `sign`, and resolves with the server's verdict. */
function handshake(sign: (m: Uint8Array) => Uint8Array, instanceId = "node-a"): Promise<{ welcomed: boolean; code?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(server.tunnelUrl!);
    ws.onmessage = (ev) => {
      const msg = JSON.parse(String(ev.data)) as ServerMessage;
      if (msg.type === "challenge") {
        const signature = b64(sign(handshakeMessage(msg.challenge, "acme", instanceId)));
        ws.send(JSON.stringify({ type: "hello", tenant: "acme", instance_id: instanceId, signature }));
      } else if (msg.type === "welcome") {
        resolve({ welcomed: true });
        ws.close();
      }
    };
    ws.onclose = (ev) => resolve({ welcomed: false, code: ev.code });
  });
}

describe("tunnel handshake", () => {
  test("the enrolled key's signature over the challenge opens the tunnel", async () => {
    expect((await enrol()).status).toBe(200);
    expect(await handshake((m) => sodium.crypto_sign_detached(m, keys.privateKey))).toEqual({ welcomed: true });
  });

  test("another key, an unenrolled instance, or a disabled organization is refused", async () => {
    expect((await enrol()).status).toBe(200);
    const other = sodium.crypto_sign_keypair();
    expect(await handshake((m) => sodium.crypto_sign_detached(m, other.privateKey))).toEqual({ welcomed: false, code: 4403 });
    expect(await handshake((m) => sodium.crypto_sign_detached(m, keys.privateKey), "node-b")).toEqual({ welcomed: false, code: 4403 });
    await store.setProfilerEnabled("acme", false);
    expect(await handshake((m) => sodium.crypto_sign_detached(m, keys.privateKey))).toEqual({ welcomed: false, code: 4403 });
  });

  test("nothing but a hello is accepted before the handshake", async () => {
    const closed = await new Promise<number>((resolve) => {
      const ws = new WebSocket(server.tunnelUrl!);
      ws.onmessage = () => ws.send(JSON.stringify({ type: "answer", request_id: "x", answer: "running" }));
      ws.onclose = (ev) => resolve(ev.code);
    });
    expect(closed).toBe(4401);
  });

  test(`once welcomed, frames past the hello's ${HELLO_MAX_BYTES} bytes are read, and a header announcing more than a result's ${Math.round(MAX_TUNNEL_FRAME_BYTES / 2 ** 20)} MiB is refused (1009)`, async () => {
    expect((await enrol()).status).toBe(200);
    const t = await rawTunnel(server.tunnelUrl!);
    await until("the challenge", 5_000, async () => t.texts.length > 0);
    const { challenge } = JSON.parse(t.texts[0]!) as { challenge: string };
    const signature = b64(sodium.crypto_sign_detached(handshakeMessage(challenge, "acme", "node-a"), keys.privateKey));
    t.write(clientFrame(1, Buffer.from(JSON.stringify({ type: "hello", tenant: "acme", instance_id: "node-a", signature }))));
    await until("the welcome", 5_000, async () => t.texts.some((m) => JSON.parse(m).type === "welcome"));
    t.write(clientFrame(1, Buffer.from(JSON.stringify({ type: "heartbeat", at: Date.now(), padding: "p".repeat(4 * HELLO_MAX_BYTES) }))));
    let ended = false;
    void t.ended.then(() => (ended = true));
    await Bun.sleep(300);
    expect(ended).toBe(false); // read, not refused
    t.write(clientFrame(1, new Uint8Array(0), MAX_TUNNEL_FRAME_BYTES + 1));
    expect((await t.ended).code).toBe(1009);
  });

  test("a Profiler that goes silent is dropped by the heartbeat (dead peer within 30 s)", async () => {
    expect((await enrol()).status).toBe(200);
    const started = Date.now();
    const closed = await new Promise<number>((resolve) => {
      const ws = new WebSocket(server.tunnelUrl!);
      ws.onmessage = (ev) => {
        const msg = JSON.parse(String(ev.data)) as ServerMessage;
        if (msg.type !== "challenge") return; // after the hello: silence, no heartbeat from us
        const signature = b64(sodium.crypto_sign_detached(handshakeMessage(msg.challenge, "acme", "node-a"), keys.privateKey));
        ws.send(JSON.stringify({ type: "hello", tenant: "acme", instance_id: "node-a", signature }));
      };
      ws.onclose = (ev) => resolve(ev.code);
    });
    expect(closed).not.toBe(1000);
    // dropped after HEARTBEAT_DEAD_MS of silence, checked every few seconds
    expect(Date.now() - started).toBeGreaterThanOrEqual(HEARTBEAT_DEAD_MS);
    expect(Date.now() - started).toBeLessThan(HEARTBEAT_DEAD_MS + 15_000);
  }, 60_000);
});
