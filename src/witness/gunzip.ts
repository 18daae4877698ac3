// Every gunzip of a profile goes through here and stops at MAX_PROFILE_BYTES of output: a gzip
// bomb is refused after at most that much work and memory, never inflated whole. The server
// inflates in its worker (src/server/off-loop/), so the event loop (and /healthz) keeps answering
// while a stored bomb is being refused.
import { gunzipSync } from "node:zlib";
import { MAX_PROFILE_BYTES, ProfileTooLargeError } from "../protocol/profile-limits.ts";

export class CorruptGzipError extends Error {}

export const isGzip = (bytes: Uint8Array): boolean => bytes[0] === 0x1f && bytes[1] === 0x8b;

function refusal(err: unknown, what: string): Error {
  if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") return new ProfileTooLargeError(`${what} decompresses to`);
  return new CorruptGzipError(`${what}: corrupt gzip data`);
}

export function gunzipProfileSync(gz: Uint8Array, what = "the profile"): Uint8Array {
  try {
    return new Uint8Array(gunzipSync(gz, { maxOutputLength: MAX_PROFILE_BYTES }));
  } catch (err) {
    throw refusal(err, what);
  }
}
