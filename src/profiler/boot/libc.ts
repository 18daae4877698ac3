// The three libc calls the boot needs and Bun does not expose: getxattr (file capabilities are an
// xattr, read without libcap), statvfs (the per-mount ST_NOSUID flag of the collector's file
// system) and flock (the identity volume's lock). Loaded lazily through bun:ffi; glibc only.

import { dlopen, FFIType, ptr, read } from "bun:ffi";

const ST_NOSUID = 2;
const ENODATA = 61;
export const LOCK_EX = 2;
export const LOCK_NB = 4;
export const LOCK_UN = 8;

type Lib = ReturnType<typeof open>;
let lib: Lib | undefined;

function open() {
  return dlopen("libc.so.6", {
    getxattr: { args: [FFIType.cstring, FFIType.cstring, FFIType.ptr, FFIType.u64], returns: FFIType.i64 },
    statvfs: { args: [FFIType.cstring, FFIType.ptr], returns: FFIType.i32 },
    flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  });
}

function libc(): Lib {
  lib ??= open();
  return lib;
}

function cstr(s: string): Buffer {
  return Buffer.from(`${s}\0`, "utf8");
}

function errno(): number {
  const p = libc().symbols.__errno_location();
  return p === null ? 0 : read.i32(p, 0);
}

export class LibcError extends Error {
  constructor(
    readonly call: string,
    readonly errno: number,
  ) {
    super(`${call} failed (errno ${errno})`);
  }
}

/** The raw `security.capability` xattr, or null when the file has none. */
export function getCapabilityXattr(path: string): Uint8Array | null {
  const buf = new Uint8Array(64);
  const n = Number(libc().symbols.getxattr(cstr(path), cstr("security.capability"), ptr(buf), BigInt(buf.length)));
  if (n < 0) {
    const e = errno();
    if (e === ENODATA) return null;
    throw new LibcError("getxattr", e);
  }
  return buf.slice(0, n);
}

/** True when the file system holding `path` is mounted nosuid (file capabilities are then ignored). */
export function isNosuid(path: string): boolean {
  // struct statvfs on 64-bit glibc: eleven unsigned longs; f_flag is the tenth (index 9).
  const sv = new BigUint64Array(16);
  if (libc().symbols.statvfs(cstr(path), ptr(sv)) !== 0) throw new LibcError("statvfs", errno());
  return (Number(sv[9]) & ST_NOSUID) !== 0;
}

/** flock(2); returns 0 or the errno (EWOULDBLOCK = 11 when another holder has it). */
export function flock(fd: number, op: number): number {
  return libc().symbols.flock(fd, op) === 0 ? 0 : errno();
}
