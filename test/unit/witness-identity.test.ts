// Issue 14 item 8 / issue 17: frames named by an absolute address (garbage return addresses of a
// frame-pointer walk through code without frame pointers; each process has different ones) are no
// function identity. Before: every capture had "functions" no other capture had, and two identical
// versions came out `changed`, flagging `[unknown] 0x7f…` frames and nothing real.
import { describe, expect, test } from "bun:test";
import { diffCaptures } from "../../src/witness/diff.ts";
import { functionIdentity, isPlaceholder } from "../../src/witness/identity.ts";
import { parseStream } from "../../src/witness/stream.ts";
import type { Capture } from "../../src/witness/model.ts";

/** One capture of the same program: real functions with fixed shares, plus a garbage caller whose
 * address is different in this process (as ASLR and stale stack slots make it). */
function capture(seed: number): Capture {
  const garbage = (0x7f0000000000 + seed * 0x1234567).toString(16);
  const lines = [
    { type: "header", version: 1, workload: "py", probes_requested: ["cpu"], frequency_hz: 99, warmup_sec: 0, duration_sec: 60, started_at_ms: 0 },
    { type: "probe", name: "cpu", attached: true },
    { type: "axis", name: "cpu", unit: "samples", period_ns: 10101010 },
    { type: "frame", id: 0, function: "main", kind: "native", module: "/usr/bin/python3.11" },
    { type: "frame", id: 1, function: "handler", kind: "native", module: "/usr/bin/python3.11" },
    { type: "frame", id: 2, function: "parse", kind: "native", module: "/usr/bin/python3.11" },
    { type: "frame", id: 3, function: `[unknown] 0x${garbage}`, kind: "unknown", address: `0x${garbage}` },
    { type: "frame", id: 4, function: "memcpy", kind: "native", module: "/usr/lib/x86_64-linux-gnu/libc.so.6" },
    { type: "stack", axis: "cpu", frames: [0, 1], value: 3000 + (seed % 3) * 20 },
    { type: "stack", axis: "cpu", frames: [0, 2], value: 2000 + (seed % 2) * 20 },
    // libc without frame pointers: the walk from memcpy lands on a stale slot.
    { type: "stack", axis: "cpu", frames: [3, 4], value: 1500 + (seed % 4) * 10 },
    { type: "summary", samples: { cpu: 6500 }, lost: { cpu: 0 }, partial: false, ended_at_ms: 60000, measured_sec: 60 },
  ];
  return parseStream(lines.map((l) => JSON.stringify(l)).join("\n") + "\n", `c${seed}`);
}

describe("function identity", () => {
  test("an absolute address is grouped per module, names and module+offset are kept", () => {
    expect(functionIdentity({ name: "[unknown] 0x7f12aa001234" })).toBe("[unknown]");
    expect(functionIdentity({ name: "[unknown] 0x15c10", module: "/usr/lib/x86_64-linux-gnu/liblzma.so.5" })).toBe("[unknown liblzma.so.5]");
    expect(functionIdentity({ name: "liblzma.so.5+0x15c10", module: "/usr/lib/liblzma.so.5" })).toBe("liblzma.so.5+0x15c10");
    expect(functionIdentity({ name: "apply_discounts" })).toBe("apply_discounts");
    for (const p of ["[unknown]", "[unknown liblzma.so.5]", "[truncated]", "[no stack]"]) expect(isPlaceholder(p)).toBe(true);
    for (const f of ["main", "liblzma.so.5+0x15c10", "[kernel]", "[jit] foo"]) expect(isPlaceholder(f)).toBe(false);
  });

  test("identical versions whose garbage frames differ per process are not `changed`", () => {
    const r = diffCaptures({ before: [1, 2, 3].map(capture), after: [4, 5, 6].map(capture) });
    const flagged = r.changes.filter((c) => c.flagged).map((c) => c.function);
    expect(flagged).toEqual([]);
    expect(r.changes.some((c) => /0x/.test(c.function))).toBe(false);
    expect(r.verdict).not.toBe("changed");
  });
});
