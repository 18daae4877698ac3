// What every `runner admin` command shares: its output and its usage errors (exit 2).
import { safe, terminalJson, terminalSafe } from "../../terminal-text.ts";
import type { Store } from "../store/store.ts";
import type { Handler } from "./handler.ts";

export class UsageError extends Error {}

export const out = (s: string): void => void process.stdout.write(`${s}\n`);
// Every field printed by admin was stored from a client or a Profiler: printed terminal-safe.
export const printJson = (v: unknown): void => out(terminalJson(v));

export function need(args: string[], n: number, shape: string): string[] {
  if (args.length !== n) throw new UsageError(`expected: runner admin ${shape}`);
  return args;
}

/** A token's state as `token list` and `read-token list` print it. */
export function tokenState(t: { createdAt: number; revokedAt: number | null }) {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return { active: t.revokedAt === null, created_at: iso(t.createdAt)!, revoked_at: iso(t.revokedAt) };
}

/** One tab-separated line of a token list, terminal-safe: its name, active or when revoked, the `extra` columns, when created. */
export function tokenLine(name: string, state: ReturnType<typeof tokenState>, ...extra: string[]): string {
  return [name, state.active ? "active" : `revoked ${state.revoked_at}`, ...extra, `created ${state.created_at}`].map(terminalSafe).join("\t");
}

/** `KIND revoke ORG NAME`: revokes the active token of that name (StoreError not_found when none), saying which. */
export function revokeCommand(kind: string, label: string, revoke: (store: Store, org: string, name: string) => Promise<void>): Handler {
  return async (store, args) => {
    const [org, name] = need(args, 2, `${kind} revoke ORG NAME`);
    await revoke(store, org!, name!);
    out(safe`${label} "${name}" of ${org} revoked`);
  };
}
