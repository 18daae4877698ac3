// Which stored profiles a retention policy prunes. Pure: captures, policy and time in, a split out.
//
// Per (workload, env), the latest `keepVersions` versions — by their newest pushed capture — keep
// every profile whatever its age: a new deploy is always compared with its predecessor. Any other
// version loses a head's profile once it is older than `headDays`, a replicate's once older than
// `replicateDays` (null: never).
import type { RetentionPolicy, StoredProfile } from "../store/retention-store.ts";

const DAY_MS = 86_400_000;

export interface Selection {
  keep: StoredProfile[];
  prune: StoredProfile[];
}

export function selectForPruning(stored: readonly StoredProfile[], policy: RetentionPolicy, now: number): Selection {
  const newest = new Map<string, Map<string, number>>(); // (workload, env) → version → newest capture
  const key = (s: StoredProfile) => JSON.stringify([s.workload, s.env]);
  for (const s of stored) {
    const versions = newest.get(key(s)) ?? new Map<string, number>();
    versions.set(s.version, Math.max(versions.get(s.version) ?? 0, s.createdAt));
    newest.set(key(s), versions);
  }
  const kept = new Map<string, Set<string>>();
  for (const [k, versions] of newest) {
    const latest = [...versions].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : -1)).slice(0, policy.keepVersions);
    kept.set(k, new Set(latest.map(([v]) => v)));
  }
  const out: Selection = { keep: [], prune: [] };
  for (const s of stored) {
    const days = s.kind === "head" ? policy.headDays : policy.replicateDays;
    const expired = days !== null && now - s.createdAt > days * DAY_MS;
    (expired && !kept.get(key(s))!.has(s.version) ? out.prune : out.keep).push(s);
  }
  return out;
}
