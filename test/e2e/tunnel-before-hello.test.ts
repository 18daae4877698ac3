// The compiled `runner server`'s tunnel port before `welcome` (issue 29, item 1). Reproduced
// before: a 20 MiB frame was read whole and its unknown `type` logged verbatim; heartbeats kept an
// unauthenticated socket open forever (the hello timeout restarted on every frame); 8,300 such
// sockets were held at once, in the descriptors the HTTP API shares.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { HELLO_DEADLINE_MS, HELLO_MAX_BYTES } from "../../src/protocol/tunnel.ts";
import { MAX_UNAUTHENTICATED } from "../../src/server/tunnel/handshake-gate.ts";
import { clientFrame, rawTunnel, type RawTunnel } from "../helpers/raw-tunnel.ts";
import { startServer, type Replica } from "../helpers/replicas.ts";
import { mustAdmin } from "../helpers/runner-admin.ts";

setDefaultTimeout(60_000);
const TEXT = 0x1;
const PING = 0x9;
const json = (v: unknown) => Buffer.from(JSON.stringify(v));

describe("the tunnel before welcome", () => {
  const dir = mkdtempSync(join(tmpdir(), "runner-tunnel-hello-"));
  let server: Replica;
  const logBytes = () => server.log.reduce((n, line) => n + line.length + 1, 0);
  // Started first and checked last, so the deadline's wait overlaps the other tests.
  let pinging: RawTunnel;
  let slowHead: RawTunnel;
  let startedAt = 0;
  let pinger: ReturnType<typeof setInterval>;

  beforeAll(async () => {
    mustAdmin(dir, ["org", "create", "acme"]);
    server = await startServer(["--data", dir]);
    startedAt = Date.now();
    pinging = await rawTunnel(server.tunnelUrl);
    const u = new URL(server.tunnelUrl);
    slowHead = await rawTunnel(server.tunnelUrl, `GET /tunnel HTTP/1.1\r\nHost: ${u.host}\r\n`);
    await pinging.upgraded;
    pinger = setInterval(() => {
      pinging.write(clientFrame(PING, Buffer.from("still here")));
      slowHead.write(Buffer.from("X-Slow: 1\r\n"));
    }, 500);
  });
  afterAll(async () => {
    clearInterval(pinger);
    server?.proc.kill();
    await server?.proc.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  test("a 20 MiB frame before hello is refused at its header (1009), and bad frames barely touch the log", async () => {
    const logBefore = logBytes();
    const bomb = await rawTunnel(server.tunnelUrl);
    await bomb.upgraded;
    // The header announces 20 MiB; the first MiB follows. The server must not wait for the rest.
    const first = Buffer.from(JSON.stringify({ type: "x".repeat(1 << 20) })).subarray(0, 1 << 20);
    bomb.write(clientFrame(TEXT, first, 20 << 20));
    expect((await bomb.ended).code).toBe(1009);

    // Frames just under the limit, each naming a type of 7,000 characters, from 50 connections.
    const junk = await Promise.all(Array.from({ length: 50 }, () => rawTunnel(server.tunnelUrl)));
    for (const t of junk) {
      await t.upgraded;
      const frame = json({ type: "y".repeat(7000) });
      expect(frame.length).toBeLessThan(HELLO_MAX_BYTES);
      t.write(clientFrame(TEXT, frame));
    }
    for (const t of junk) expect((await t.ended).code).toBe(4401);
    await Bun.sleep(200);
    expect(logBytes() - logBefore).toBeLessThan(64 * 1024);
    expect(server.log.join("\n")).not.toContain("y".repeat(100));
  });

  test("a heartbeat before hello closes the connection at once", async () => {
    const t = await rawTunnel(server.tunnelUrl);
    await t.upgraded;
    t.write(clientFrame(TEXT, json({ type: "heartbeat", at: Date.now() })));
    const end = await t.ended;
    expect(end.code).toBe(4401);
    expect(t.texts.map((m) => JSON.parse(m).type)).toEqual(["challenge"]);
  });

  test("10,000 connections that never say hello: the tunnel holds at most its cap and the API keeps answering", async () => {
    const healthz = `${server.url}/healthz`;
    let flooding = true;
    const polls: Array<{ status: number; ms: number }> = [];
    let fdPeak = 0;
    const poll = (async () => {
      while (flooding) {
        const t0 = performance.now();
        const r = await fetch(healthz).catch(() => null);
        polls.push({ status: r?.status ?? 0, ms: performance.now() - t0 });
        await r?.arrayBuffer();
        fdPeak = Math.max(fdPeak, readdirSync(`/proc/${server.proc.pid}/fd`).length);
        await Bun.sleep(50);
      }
    })();
    const port = new URL(server.tunnelUrl).port;
    const flood = Bun.spawn(["bash", "-c", 'ulimit -n 16384 && exec "$@"', "flood", process.execPath, resolve(import.meta.dir, "../helpers/socket-flood.ts"), "127.0.0.1", port, "10000", "32"], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(flood.stdout).text(), new Response(flood.stderr).text(), flood.exited]);
    flooding = false;
    await poll;
    expect({ code, err }).toEqual({ code: 0, err: "" });
    const result = JSON.parse(out) as { attempts: number; ended: number; held: number };
    console.log(`flood: ${JSON.stringify(result)}; server descriptors at most ${fdPeak}; /healthz ${polls.length} answers, slowest ${Math.round(Math.max(...polls.map((p) => p.ms)))} ms`);
    expect(result.ended).toBe(10_000);
    expect(result.held).toBeLessThanOrEqual(MAX_UNAUTHENTICATED);
    expect(fdPeak).toBeLessThan(MAX_UNAUTHENTICATED + 200);
    expect(polls.length).toBeGreaterThan(3);
    expect(polls.every((p) => p.status === 200)).toBe(true);
    // With the flood gone, the gate has room again.
    const after = await rawTunnel(server.tunnelUrl);
    await after.upgraded;
    await Bun.sleep(100);
    expect(after.texts.map((m) => JSON.parse(m).type)).toEqual(["challenge"]);
    after.end();
  });

  test(`pings or a request head that never ends do not hold a connection past ${HELLO_DEADLINE_MS / 1000} s`, async () => {
    const [ping, head] = await Promise.all([pinging.ended, slowHead.ended]);
    expect(ping.code).toBe(4408);
    for (const end of [ping, head]) {
      expect(end.at - startedAt).toBeGreaterThanOrEqual(HELLO_DEADLINE_MS - 100);
      expect(end.at - startedAt).toBeLessThan(HELLO_DEADLINE_MS + 3000);
    }
  });
});
