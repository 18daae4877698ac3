// How large one profile may be, wherever one is decompressed or carried: `runner witness`, the
// diff computed when a profile is pushed, the capture screen, the tunnel. Every gunzip stops at
// MAX_PROFILE_BYTES of output and refuses the input (a 0.26 MB gzip of zeros is 1.27 GB inflated).
//
// Derived from ptop's own bound, not from a count of samples: ptop writes a record only while the
// stream stays within PTOP_STREAM_BUDGET, 126 MiB, and its summary (bounded notes, at most 50
// locks) is under 1 MiB (native/ptop/src/out/output.h), so no stream exceeds 127 MiB whatever the
// frequency, the window or the number of CPUs; stacks go in largest first, and what does not fit is
// counted as lost. The limit is the next power of two, 128 MiB; a unit test keeps the two in step.
// For scale, a measured capture: ptop (all three probes, 99 Hz) on a Node HTTP service serving
// itself (11 threads), 300 s, 2-CPU host (2026-11-23), wrote 491 KB (43 KB gzipped): 15,199 cpu
// samples in 2,269 distinct stacks of 21 frames on average, 126 bytes per stack record. Identical
// stacks share one record, so a stream grows with distinct stacks, not samples: a real capture
// stays far below the limit, which is there for bombs and hostile input.

export const MAX_PROFILE_BYTES = 128 * 1024 * 1024;

/**
 * The most gzip makes of `bytes` of input: incompressible data goes into stored blocks of 5 bytes'
 * overhead per 16 KiB, plus 23 bytes (the 18 of gzip's header and trailer, and a final 5-byte
 * block). Measured with node:zlib, the Profiler's gzip, on random bytes from 16 KiB to 64 MiB: at
 * most this, exactly this from 1 MiB on (test/unit/profile-limits.test.ts).
 */
export const gzipBound = (bytes: number): number => bytes + Math.ceil(bytes / 16384) * 5 + 23;

/**
 * The largest tunnel frame: a `result` carrying a profile at the limit, gzipped (gzipBound) and
 * base64-encoded (a third more), and the rest of the message (ids, reason, instrumentation) in
 * 64 KiB. So any profile the decompression limit accepts fits in one frame (about 171 MiB; it was
 * 256 MiB before limits), and nothing much larger is buffered before the server reads it.
 */
export const MAX_TUNNEL_FRAME_BYTES = Math.ceil((gzipBound(MAX_PROFILE_BYTES) * 4) / 3) + 64 * 1024;

export const mib = (bytes: number): string => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;

/** `subject` reads into the sentence, e.g. "api.pb.gz decompresses to" or "the pushed profile holds". */
export class ProfileTooLargeError extends Error {
  constructor(subject: string) {
    super(`${subject} more than ${mib(MAX_PROFILE_BYTES)}, the limit for one profile (a 300 s capture of a busy service needs well under 1 MiB): refused`);
  }
}

// What one ptop stream can hold, from ptop's own bounds (native/ptop/src; a unit test reads them
// there and keeps these in step). A pushed profile past any of them is not a ptop stream: it is
// refused at parse time, its reason on the record, before it costs a diff (issue 29).

/** A stack's frames: ptop's report (out/report.c) joins at most PTOP_MAX_UNWIND_DEPTH (256) user
 *  frames, PTOP_MAX_STACK_DEPTH (127) kernel frames, PY_MAX_FRAMES (64) Python frames and 2 more. */
export const MAX_STACK_DEPTH = 256 + 127 + 64 + 2;
/** Stack records in one stream: one per entry of the unwinder's aggregate (PTOP_UNWIND_MAX_ENTRIES,
 *  2^18, every axis but syscalls) plus one per entry of the syscall counts map (16,384). */
export const MAX_STREAM_STACKS = (1 << 18) + 16_384;
/** Frame records in one stream. Not a count ptop states: its frames grow with the code the stacks
 *  pass through (a real capture: 2,269 stacks, a few thousand frames). 2^20 is far past any
 *  symbol table's share of a 126 MiB stream and bounds what the diff builds per frame. */
export const MAX_STREAM_FRAMES = 1 << 20;
/** A function or module name. ptop's symbol names are at most 1,024 bytes mangled (ELF, Go) or a
 *  4,096-byte perf-map line, paths at most PATH_MAX (4,096); demangling expands C++ templates, so
 *  the bound leaves room: 64 Ki characters. */
export const MAX_NAME_CHARS = 64 * 1024;
/** One JSON line: the largest record ptop writes is its summary, under 1 MiB (out/output.h). */
export const MAX_RECORD_CHARS = 1024 * 1024;

/** A stored diff: its JSON and its page (the differential flame graph). A real diff is well under
 *  1 MiB of each; past a bound the verdict and note are stored and the document is not. */
export const MAX_DIFF_JSON_BYTES = 8 * 1024 * 1024;
export const MAX_DIFF_HTML_BYTES = 16 * 1024 * 1024;
