// The profile limit of every reader (src/protocol/profile-limits.ts) rests on ptop's stream budget
// (native/ptop/src/out/output.h): a stream ptop writes must always be accepted, so the limit covers the
// budget plus the summary's 1 MiB. Changing either number alone fails here.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { resolve } from "node:path";
import { gzipBound, MAX_PROFILE_BYTES } from "../../src/protocol/profile-limits.ts";

const OUTPUT_H = resolve(import.meta.dir, "../../native/ptop/src/out/output.h");

function ptopStreamBudget(): number {
  const m = readFileSync(OUTPUT_H, "utf8").match(/#define PTOP_STREAM_BUDGET \((\d+)ull << (\d+)\)/);
  if (!m) throw new Error(`no PTOP_STREAM_BUDGET definition in ${OUTPUT_H}`);
  return Number(m[1]) * 2 ** Number(m[2]);
}

test("every stream ptop can write is within the profile limit", () => {
  const summaryAtMost = 1024 * 1024;
  expect(ptopStreamBudget() + summaryAtMost).toBeLessThanOrEqual(MAX_PROFILE_BYTES);
});

// MAX_TUNNEL_FRAME_BYTES rests on gzipBound: checked on the gzip the Profiler uses (capture.ts)
// with random bytes, which no compressor shrinks.
test("gzip grows incompressible input no more than gzipBound says", () => {
  for (const n of [16384, 100_000, 4 * 1024 * 1024]) {
    const random = new Uint8Array(n);
    for (let off = 0; off < n; off += 65536) crypto.getRandomValues(random.subarray(off, Math.min(n, off + 65536)));
    const size = gzipSync(random).length;
    expect({ n, grew: size > n, withinBound: size <= gzipBound(n) }).toEqual({ n, grew: true, withinBound: true });
  }
});
