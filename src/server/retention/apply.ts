// Applying an organization's retention policy: once (`runner admin captures prune`, with a dry
// run) or on the server's schedule. Pruning is idempotent, so replicas sharing one PostgreSQL
// database may all run the schedule: a profile already gone is not counted twice.
import type { Logger } from "../../log.ts";
import type { Store } from "../store/store.ts";
import { selectForPruning } from "./select.ts";

export interface PruneReport {
  org: string;
  /** false: the org has no policy, nothing is pruned. */
  policy: boolean;
  kept: number;
  pruned: number;
  /** Compressed profile bytes freed (or that would be, in a dry run). */
  bytes: number;
  dryRun: boolean;
}

export async function applyRetention(store: Store, org: string, opts: { now: number; dryRun: boolean }): Promise<PruneReport> {
  const policy = await store.getRetentionPolicy(org);
  const stored = await store.listStoredProfiles(org);
  if (!policy) return { org, policy: false, kept: stored.length, pruned: 0, bytes: 0, dryRun: opts.dryRun };
  const { keep, prune } = selectForPruning(stored, policy, opts.now);
  if (opts.dryRun) return { org, policy: true, kept: keep.length, pruned: prune.length, bytes: prune.reduce((n, s) => n + s.bytes, 0), dryRun: true };
  const done = await store.pruneProfiles(org, prune.map((s) => s.requestId), opts.now);
  return { org, policy: true, kept: keep.length, pruned: done.pruned, bytes: done.bytes, dryRun: false };
}

export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/** Applies every org's policy now and then every `intervalMs`; returns the stop function. */
export function scheduleRetention(store: Store, logger: Logger, now: () => number, intervalMs = RETENTION_INTERVAL_MS): () => void {
  let running = false;
  const pass = async () => {
    if (running) return; // a slow pass is never overlapped by the next
    running = true;
    try {
      for (const org of await store.listRetentionOrgs()) {
        const r = await applyRetention(store, org, { now: now(), dryRun: false });
        if (r.pruned > 0) logger.info({ org, pruned: r.pruned, bytes: r.bytes, kept: r.kept }, "retention pruned profiles");
      }
    } catch (err) {
      logger.error({ err: (err as Error).message }, "retention pass failed; the next pass tries again");
    } finally {
      running = false;
    }
  };
  void pass();
  const timer = setInterval(() => void pass(), intervalMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
