// CLOCK_MONOTONIC in seconds, the clock Python's time.monotonic() reads, so that a bench can place
// its own events (a tool's window opening, a signal sent) on the same time line as the progress
// reports of its targets. Bun's performance.now() and process.hrtime() count from the process's
// start, not from boot, so they cannot be compared with another process's clock.
import { dlopen, FFIType, ptr } from "bun:ffi";

const CLOCK_MONOTONIC = 1;
const libc = dlopen("libc.so.6", { clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } });
const ts = new BigInt64Array(2);

export function monotonicNow(): number {
  if (libc.symbols.clock_gettime(CLOCK_MONOTONIC, ptr(ts)) !== 0) throw new Error("clock_gettime(CLOCK_MONOTONIC) failed");
  return Number(ts[0]) + Number(ts[1]) / 1e9;
}
