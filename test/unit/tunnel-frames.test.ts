// The parts of the tunnel's unauthenticated side: the frame reader's limits, the hello's bounds,
// the handshake gate and the rate-limited warnings (the compiled server: test/e2e/tunnel-before-hello.test.ts).
import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { clipReason, HELLO_MAX_BYTES, HELLO_NAME_CHARS, HELLO_REQUEST_ID_CHARS, HELLO_RUNNING_MAX, ProfilerMessage, REASON_MAX_CHARS } from "../../src/protocol/tunnel.ts";
import { gateCaps, HandshakeGate, openFilesLimit } from "../../src/server/tunnel/handshake-gate.ts";
import { clipForLog, WarnLimiter } from "../../src/server/tunnel/warn-limiter.ts";
import { FrameError, FrameReader, OP } from "../../src/server/tunnel/ws-frames.ts";
import { clientFrame } from "../helpers/raw-tunnel.ts";
import type { Logger } from "../../src/log.ts";

const text = (s: string) => Buffer.from(s);
const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    if (err instanceof FrameError) return err.code;
    throw err;
  }
  return null;
};

describe("the frame reader", () => {
  test("refuses a frame announcing more than the limit from its header alone", () => {
    const r = new FrameReader(() => 8192);
    const header = Buffer.from(clientFrame(OP.text, new Uint8Array(0), 20 << 20));
    expect(codeOf(() => r.push(header))).toBe(1009);
  });

  test("counts the fragments of one message against the limit, and follows a raised limit", () => {
    let limit = 100;
    const r = new FrameReader(() => limit);
    const first = Buffer.from(clientFrame(OP.text, text("a".repeat(60))));
    first[0] = OP.text; // FIN clear: more fragments follow
    expect(r.push(first)).toEqual([]);
    expect(codeOf(() => r.push(Buffer.from(clientFrame(OP.continuation, text("b".repeat(60))))))).toBe(1009);
    limit = 1000;
    const r2 = new FrameReader(() => limit);
    const whole = Buffer.from(clientFrame(OP.text, text("c".repeat(500))));
    // byte by byte: the reader waits for the whole frame
    const got = [...whole].flatMap((b) => r2.push(Buffer.from([b])));
    expect(got).toEqual([{ kind: "text", text: "c".repeat(500) }]);
  });

  test("refuses unmasked frames, reserved bits, binary frames and oversized control frames", () => {
    const unmasked = Buffer.from(clientFrame(OP.text, text("x")));
    unmasked[1]! &= 0x7f;
    expect(codeOf(() => new FrameReader(() => 100).push(unmasked))).toBe(1002);
    const rsv = Buffer.from(clientFrame(OP.text, text("x")));
    rsv[0]! |= 0x40;
    expect(codeOf(() => new FrameReader(() => 100).push(rsv))).toBe(1002);
    expect(codeOf(() => new FrameReader(() => 100).push(Buffer.from(clientFrame(OP.binary, text("x")))))).toBe(1003);
    expect(codeOf(() => new FrameReader(() => 100_000).push(Buffer.from(clientFrame(OP.ping, new Uint8Array(126)))))).toBe(1002);
    expect(codeOf(() => new FrameReader(() => 100).push(Buffer.from(clientFrame(OP.text, Buffer.from([0xff, 0xfe])))))).toBe(1007);
  });
});

test("the largest hello the schema allows fits the frame limit before welcome", () => {
  const worst = "\u0001".repeat(HELLO_NAME_CHARS); // JSON writes each as \u0001: 6 bytes
  const hello = {
    type: "hello",
    tenant: worst,
    instance_id: worst,
    signature: "A".repeat(88),
    running: Array.from({ length: HELLO_RUNNING_MAX }, () => "f".repeat(HELLO_REQUEST_ID_CHARS)),
  };
  expect(Value.Check(ProfilerMessage, hello)).toBe(true);
  expect(Buffer.byteLength(JSON.stringify(hello))).toBeLessThanOrEqual(HELLO_MAX_BYTES);
  expect(Value.Check(ProfilerMessage, { ...hello, running: [...hello.running, "x"] })).toBe(false);
  expect(Value.Check(ProfilerMessage, { ...hello, tenant: `${worst}x` })).toBe(false);
});

test("the handshake gate caps connections in total and per address, and gives places back", () => {
  const gate = new HandshakeGate({ total: 3, perAddress: 2 });
  expect(["a", "a", "a"].map((x) => gate.admit(x))).toEqual(["admitted", "admitted", "address"]);
  expect(gate.admit("b")).toBe("admitted");
  expect(gate.admit("c")).toBe("total");
  gate.release("a");
  expect(gate.admit("c")).toBe("admitted");
  gate.release("nobody"); // never admitted: no place to give back
  expect(gate.waiting).toBe(3);
  expect(gateCaps(20_000)).toEqual({ total: 1024, perAddress: 64 });
  expect(gateCaps(1024)).toEqual({ total: 128, perAddress: 64 });
  expect(gateCaps(null).total).toBe(1024);
  expect(openFilesLimit()).toBeGreaterThan(0);
});

test("warnings a peer causes are rate-limited per kind, and the next minute says how many were left out", () => {
  const lines: Array<[Record<string, unknown>, string]> = [];
  const logger = { warn: (fields: Record<string, unknown>, msg: string) => lines.push([fields, msg]) } as unknown as Logger;
  let now = 0;
  const w = new WarnLimiter(logger, 10, () => now);
  for (let i = 0; i < 1000; i++) w.warn("bad frame", { i });
  w.warn("another kind");
  expect(lines.length).toBe(11);
  now = 60_000;
  w.warn("bad frame");
  expect(lines.at(-1)![0]).toEqual({ suppressed_last_minute: 990 });
  expect(clipForLog("z".repeat(10_000))).toBe(`${"z".repeat(80)}… (10000 chars)`);
  expect(clipForLog({ nested: "z".repeat(10_000) })).toBe("(object)");
});

test("after welcome, request ids and reasons a Profiler sends are bounded too; the Profiler cuts a long reason to fit", () => {
  const answer = (request_id: string, reason?: string) => ({ type: "answer", request_id, answer: "refused", ...(reason === undefined ? {} : { reason }) });
  expect(Value.Check(ProfilerMessage, answer("01a21bf1-ca3f-718a-86f6-297c208fdf78", "r".repeat(REASON_MAX_CHARS)))).toBe(true);
  // Logged by the dispatcher when unknown, stored on the record: never megabytes.
  expect(Value.Check(ProfilerMessage, answer("x".repeat(HELLO_REQUEST_ID_CHARS + 1)))).toBe(false);
  expect(Value.Check(ProfilerMessage, answer("a\u001b[2Kb"))).toBe(false);
  expect(Value.Check(ProfilerMessage, answer("id", "r".repeat(REASON_MAX_CHARS + 1)))).toBe(false);
  const cut = clipReason("r".repeat(10 * REASON_MAX_CHARS));
  expect(cut.length).toBe(REASON_MAX_CHARS);
  expect(Value.Check(ProfilerMessage, answer("id", cut))).toBe(true);
  expect(clipReason("short")).toBe("short");
});
