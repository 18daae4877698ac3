// The control plane's SQLite store (DIR/runner.db with its -wal and -shm) holds password, session
// and token hashes, every profile and every diff: only its owner may read it, whatever the umask
// of whoever created it. Shared by the store's opener (server/store/open.ts: `runner server`,
// `runner admin`) and `runner doctor --data DIR`, which checks a store without opening it.
import { chmodSync, closeSync, constants, existsSync, fchmodSync, mkdirSync, openSync, statSync } from "node:fs";
import { join } from "node:path";

export const STORE_FILE = "runner.db";
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** The store's directory and files with the mode each must have at most. */
function storePaths(dir: string): Array<{ path: string; mode: number }> {
  const db = join(dir, STORE_FILE);
  return [
    { path: dir, mode: DIR_MODE },
    { path: db, mode: FILE_MODE },
    { path: `${db}-wal`, mode: FILE_MODE },
    { path: `${db}-shm`, mode: FILE_MODE },
  ];
}

/**
 * Creates what is missing of the store owner-only: DIR 0700 and an empty DIR/runner.db 0600 (a
 * valid empty database). SQLite gives the -wal and -shm it creates the mode of the database file,
 * so they follow. What exists already is left as it is; `widerThanOwner` reports it.
 */
export function prepareOwnerOnlyStore(dir: string): void {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    chmodSync(dir, DIR_MODE); // the umask may have taken bits the owner needs
  }
  const db = join(dir, STORE_FILE);
  let fd: number;
  try {
    fd = openSync(db, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return; // another process created it first
    throw err;
  }
  try {
    fchmodSync(fd, FILE_MODE);
  } finally {
    closeSync(fd);
  }
}

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, "0");

/** One line per part of the store that others than its owner may read, write or enter. */
export function widerThanOwner(dir: string): string[] {
  const found: string[] = [];
  for (const { path, mode } of storePaths(dir)) {
    let st;
    try {
      st = statSync(path);
    } catch {
      continue; // -wal and -shm exist only while the store is open
    }
    if ((st.mode & 0o777 & ~mode) !== 0) found.push(`${path} is mode ${octal(st.mode)}, not ${octal(mode)}: other local users can ${st.isDirectory() ? "list or enter it" : "read it"}`);
  }
  return found;
}

/** The command that makes an existing store owner-only. */
export function ownerOnlyFix(dir: string): string {
  const quoted = /^[\w./-]+$/.test(dir) ? dir : `'${dir.replace(/'/g, "'\\''")}'`;
  return `chmod 700 ${quoted} && chmod 600 ${quoted}/${STORE_FILE}*`;
}
