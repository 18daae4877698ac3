// How large one profile may be, wherever one is decompressed or carried: `runner witness`, the
// diff computed when a profile is pushed, the capture screen, the tunnel. Every gunzip stops at
// MAX_PROFILE_BYTES of output and refuses the input (a 0.26 MB gzip of zeros is 1.27 GB inflated).
//
// Derived from a measured capture, not guessed: ptop (dist/ptop, all three probes, then 99 Hz)
// on a busy multi-threaded process — a Node HTTP service serving itself (11 threads: JSON on the
// main thread, zlib / pbkdf2 / fs on the libuv pool, V8's GC and compiler threads), 300 s, on a
// 2-CPU host with load average 13 (2026-11-23) — wrote a 491 KB stream (43 KB gzipped):
// 15,199 cpu samples, 2,269 distinct stacks of 21 frames on average (42 at most), 1,063 frames.
// That is 32 bytes of stream per cpu sample (126 per distinct stack record). A 64-CPU host running
// such a service flat out for 300 s at ptop's default 199 Hz takes 64 × 199 × 300 = 3.8 M samples:
// 122 MB at the measured rate (an upper bound: identical stacks share one record, so bytes grow
// slower than samples). The limit is the next power of two: 128 MiB, 270 times the measured capture.
// At 99 Hz (the default until 2026-11-26) the same reasoning gave 64 MiB.

export const MAX_PROFILE_BYTES = 128 * 1024 * 1024;

/**
 * The largest tunnel frame: a `result` carrying a profile at the limit. gzip never grows its input
 * by more than 5 bytes per 16 KiB block plus 18 bytes of header (incompressible data), base64 adds
 * a third, and the rest of the message (ids, reason, instrumentation) fits in 64 KiB. So any profile
 * the decompression limit accepts fits in one frame (about 171 MiB; it was 256 MiB before limits), and nothing
 * much larger is buffered before the server reads it.
 */
export const MAX_TUNNEL_FRAME_BYTES = Math.ceil(((MAX_PROFILE_BYTES + Math.ceil(MAX_PROFILE_BYTES / 16384) * 5 + 18) * 4) / 3) + 64 * 1024;

export const mib = (bytes: number): string => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;

/** `subject` reads into the sentence, e.g. "api.pb.gz decompresses to" or "the pushed profile holds". */
export class ProfileTooLargeError extends Error {
  constructor(subject: string) {
    super(`${subject} more than ${mib(MAX_PROFILE_BYTES)}, the limit for one profile (a 300 s capture of a busy service needs well under 1 MiB): refused`);
  }
}
