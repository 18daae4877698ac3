// The Profiler's persisted identity: an ed25519 key pair (libsodium) in the identity volume,
// created on first boot, files 0600 written atomically. The volume records which artifact class
// and instance it belongs to, and a lock (flock, with the holder's PID written for the message)
// is held while the Profiler runs, so the volume is never shared with the Agent or a replica.

import { chmodSync, closeSync, constants, fchmodSync, fsyncSync, ftruncateSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import sodium from "libsodium-wrappers";
import { flock, LOCK_EX, LOCK_NB, LOCK_UN } from "./boot/libc.ts";

export const IDENTITY_CLASS = "profiler";
export const IDENTITY_FILE = "identity.json";
export const KEY_FILE = "profiler.key";
export const LOCK_FILE = "identity.lock";
const EWOULDBLOCK = 11;

export interface IdentityRecord {
  version: 1;
  class: string;
  instanceId: string;
  /** base64 (standard) of the 32-byte ed25519 public key */
  publicKey: string;
  createdAt: string;
}

export interface Identity {
  dir: string;
  instanceId: string;
  publicKey: string;
  /** true when this boot created the key pair */
  created: boolean;
  /** modes found group/other-readable (e.g. by a Kubernetes fsGroup), corrected to 0600 unless inspecting */
  repairedModes: string[];
  /** entries of the volume that are not the Profiler's (reported; key-like ones refuse) */
  foreignEntries: string[];
  sign(message: Uint8Array): Uint8Array;
  release(): void;
}

/** Why the identity volume cannot be used; `setting` names what to change. */
export class IdentityError extends Error {
  constructor(
    message: string,
    readonly setting: "class" | "instance id" | "lock" | "files",
  ) {
    super(message);
  }
}

export interface OpenOptions {
  /** false: inspect only (doctor) — never create keys or change modes, release the lock at once. */
  create?: boolean;
}

export async function openIdentity(dir: string, instanceId: string, opts: OpenOptions = {}): Promise<Identity> {
  const create = opts.create ?? true;
  const existing = readRecord(dir);
  if (existing && existing.class !== IDENTITY_CLASS) {
    throw new IdentityError(`identity volume ${dir} belongs to the ${JSON.stringify(existing.class)} artifact, not the Profiler; the Profiler needs its own volume`, "class");
  }
  if (existing && existing.instanceId !== instanceId) {
    throw new IdentityError(`identity volume ${dir} belongs to instance ${JSON.stringify(existing.instanceId)}, not ${JSON.stringify(instanceId)} (RUNNER_INSTANCE_ID); use one volume per replica`, "instance id");
  }
  const lockFd = acquireLock(dir, instanceId);
  try {
    const foreignEntries = foreignEntriesOf(dir, create);
    const keyLike = foreignEntries.filter((e) => /agent|\.key$|\.pem$|ed25519|identity/i.test(e));
    if (keyLike.length > 0) {
      throw new IdentityError(`identity volume ${dir} holds another artifact's files (${keyLike.slice(0, 5).join(", ")}); the Profiler needs its own volume, not the Agent's`, "class");
    }
    await sodium.ready;
    let secretKey: Uint8Array;
    let publicKey: string;
    let created = false;
    const repairedModes: string[] = [];
    if (existing) {
      for (const f of [IDENTITY_FILE, KEY_FILE]) if (looseMode(join(dir, f), create)) repairedModes.push(f);
      secretKey = readSecretKey(dir);
      publicKey = sodium.to_base64(secretKey.slice(32), sodium.base64_variants.ORIGINAL);
      if (publicKey !== existing.publicKey) throw new IdentityError(`identity volume ${dir}: ${KEY_FILE} does not match the public key recorded in ${IDENTITY_FILE}`, "files");
    } else {
      if (!create) throw new IdentityError(`identity volume ${dir} holds no identity yet; the first boot creates it`, "files");
      const kp = sodium.crypto_sign_keypair();
      secretKey = kp.privateKey;
      publicKey = sodium.to_base64(kp.publicKey, sodium.base64_variants.ORIGINAL);
      // The key first, the record last: a record on disk always has its key beside it.
      writeAtomic(dir, KEY_FILE, `${sodium.to_base64(secretKey, sodium.base64_variants.ORIGINAL)}\n`);
      const record: IdentityRecord = { version: 1, class: IDENTITY_CLASS, instanceId, publicKey, createdAt: new Date().toISOString() };
      writeAtomic(dir, IDENTITY_FILE, `${JSON.stringify(record, null, 2)}\n`);
      created = true;
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      secretKey.fill(0);
      flock(lockFd, LOCK_UN);
      closeSync(lockFd);
    };
    if (!create) release();
    return {
      dir,
      instanceId,
      publicKey,
      created,
      repairedModes,
      foreignEntries,
      sign: (message: Uint8Array) => {
        if (released) throw new Error("identity released");
        return sodium.crypto_sign_detached(message, secretKey);
      },
      release,
    };
  } catch (err) {
    flock(lockFd, LOCK_UN);
    closeSync(lockFd);
    throw err;
  }
}

const OWN_ENTRIES = new Set([IDENTITY_FILE, KEY_FILE, LOCK_FILE, "lost+found"]);

/** Entries that are not ours; our own leftovers of an interrupted write are removed (we hold the lock). */
function foreignEntriesOf(dir: string, clean: boolean): string[] {
  const foreign: string[] = [];
  for (const name of readdirSync(dir)) {
    if (OWN_ENTRIES.has(name)) continue;
    if (/^\.(identity\.json|profiler\.key)\.\d+\.\d+\.tmp$/.test(name)) {
      if (clean) rmSync(join(dir, name), { force: true });
      continue;
    }
    foreign.push(name);
  }
  return foreign.sort();
}

function readRecord(dir: string): IdentityRecord | undefined {
  let text: string;
  try {
    text = readFileSync(join(dir, IDENTITY_FILE), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new IdentityError(`identity volume ${dir}: ${IDENTITY_FILE} cannot be read (${(err as NodeJS.ErrnoException).code})`, "files");
  }
  let rec: unknown;
  try {
    rec = JSON.parse(text);
  } catch {
    throw new IdentityError(`identity volume ${dir}: ${IDENTITY_FILE} is not valid JSON`, "files");
  }
  const r = rec as Partial<IdentityRecord>;
  if (typeof r !== "object" || r === null || typeof r.class !== "string" || typeof r.instanceId !== "string" || typeof r.publicKey !== "string") {
    throw new IdentityError(`identity volume ${dir}: ${IDENTITY_FILE} lacks class, instanceId or publicKey`, "files");
  }
  return r as IdentityRecord;
}

function readSecretKey(dir: string): Uint8Array {
  try {
    const key = sodium.from_base64(readFileSync(join(dir, KEY_FILE), "utf8").trim(), sodium.base64_variants.ORIGINAL);
    if (key.length !== sodium.crypto_sign_SECRETKEYBYTES) throw new Error("wrong length");
    return key;
  } catch {
    throw new IdentityError(`identity volume ${dir}: ${KEY_FILE} is missing or not a 64-byte ed25519 secret key`, "files");
  }
}

/** Takes the volume's lock or throws naming the holder. Returns the open lock fd. */
function acquireLock(dir: string, instanceId: string): number {
  const path = join(dir, LOCK_FILE);
  const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
  const e = flock(fd, LOCK_EX | LOCK_NB);
  if (e !== 0) {
    closeSync(fd);
    const holder = describeHolder(path);
    if (e === EWOULDBLOCK) {
      throw new IdentityError(`identity volume ${dir} is in use${holder}; it cannot be shared with another Profiler replica or the Agent (one volume per replica)`, "lock");
    }
    throw new IdentityError(`identity volume ${dir}: cannot lock ${LOCK_FILE} (errno ${e}); the volume's file system must support flock`, "lock");
  }
  // Who holds it, for the message the next contender prints.
  ftruncateSync(fd, 0);
  writeSync(fd, `${JSON.stringify({ pid: process.pid, instanceId, host: hostname(), since: new Date().toISOString() })}\n`, 0);
  return fd;
}

function describeHolder(path: string): string {
  try {
    const h = JSON.parse(readFileSync(path, "utf8")) as { pid?: number; instanceId?: string; host?: string };
    return ` by PID ${h.pid} (instance ${JSON.stringify(h.instanceId)} on host ${JSON.stringify(h.host)})`;
  } catch {
    return "";
  }
}

/** Whether group or others may read `path`; with `repair`, its mode is reset to 0600. */
function looseMode(path: string, repair: boolean): boolean {
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) === 0) return false;
  if (repair) chmodSync(path, 0o600);
  return true;
}

function writeAtomic(dir: string, name: string, content: string): void {
  const tmp = join(dir, `.${name}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, content);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(tmp);
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, join(dir, name));
  // The rename is durable only once the directory itself is synced.
  const dfd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(dfd);
  } finally {
    closeSync(dfd);
  }
}
