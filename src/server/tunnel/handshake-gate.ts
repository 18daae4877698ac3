// How many connections may wait unauthenticated (before `welcome`) at once, in total and from one
// source address. The tunnel shares the process's descriptors with the HTTP API, so a flood of
// sockets that never say hello must not be able to take them: past either cap a new connection is
// closed as soon as it is accepted. A Profiler's handshake takes one round trip and a key lookup,
// so even a fleet behind one NAT reconnecting at once passes through 64 at a time, retrying with
// its backoff.
import { readFileSync } from "node:fs";

export const MAX_UNAUTHENTICATED = 1024;
export const MAX_UNAUTHENTICATED_PER_ADDRESS = 64;

/** The soft limit on open files of this process (/proc/self/limits), or null where unreadable. */
export function openFilesLimit(limits = "/proc/self/limits"): number | null {
  try {
    const line = readFileSync(limits, "utf8").split("\n").find((l) => l.startsWith("Max open files"));
    const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
    return soft && /^\d+$/.test(soft) ? Number(soft) : null;
  } catch {
    return null;
  }
}

/** Caps for this process: at most an eighth of its descriptors go to connections not yet authenticated. */
export function gateCaps(fdLimit = openFilesLimit()): { total: number; perAddress: number } {
  const total = Math.max(16, Math.min(MAX_UNAUTHENTICATED, fdLimit ? Math.floor(fdLimit / 8) : MAX_UNAUTHENTICATED));
  return { total, perAddress: Math.min(MAX_UNAUTHENTICATED_PER_ADDRESS, total) };
}

export class HandshakeGate {
  private total = 0;
  private readonly perAddress = new Map<string, number>();

  constructor(readonly caps: { total: number; perAddress: number }) {}

  /** Takes a place for `address`, or says which cap is full. */
  admit(address: string): "admitted" | "total" | "address" {
    if (this.total >= this.caps.total) return "total";
    const n = this.perAddress.get(address) ?? 0;
    if (n >= this.caps.perAddress) return "address";
    this.total++;
    this.perAddress.set(address, n + 1);
    return "admitted";
  }

  /** Gives the place back (authenticated, or gone). */
  release(address: string): void {
    const n = this.perAddress.get(address) ?? 0;
    if (n === 0) return;
    this.total--;
    if (n === 1) this.perAddress.delete(address);
    else this.perAddress.set(address, n - 1);
  }

  get waiting(): number {
    return this.total;
  }
}
