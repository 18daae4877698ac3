// The profile limit of every reader (src/protocol/profile-limits.ts) rests on ptop's stream budget
// (native/ptop/src/output.h): a stream ptop writes must always be accepted, so the limit covers the
// budget plus the summary's 1 MiB. Changing either number alone fails here.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { MAX_PROFILE_BYTES, MAX_TUNNEL_FRAME_BYTES } from "../../src/protocol/profile-limits.ts";

const OUTPUT_H = resolve(import.meta.dir, "../../native/ptop/src/output.h");

function ptopStreamBudget(): number {
  const m = readFileSync(OUTPUT_H, "utf8").match(/#define PTOP_STREAM_BUDGET \((\d+)ull << (\d+)\)/);
  if (!m) throw new Error(`no PTOP_STREAM_BUDGET definition in ${OUTPUT_H}`);
  return Number(m[1]) * 2 ** Number(m[2]);
}

test("every stream ptop can write is within the profile limit", () => {
  const summaryAtMost = 1024 * 1024;
  expect(ptopStreamBudget() + summaryAtMost).toBeLessThanOrEqual(MAX_PROFILE_BYTES);
});

test("a profile at the limit, gzipped and base64-encoded, fits in one tunnel frame", () => {
  const worstGzip = MAX_PROFILE_BYTES + Math.ceil(MAX_PROFILE_BYTES / 16384) * 5 + 18;
  expect(Math.ceil(worstGzip / 3) * 4 + 64 * 1024).toBeLessThanOrEqual(MAX_TUNNEL_FRAME_BYTES);
});
