// `runner admin retention set|show` and `runner admin captures prune [ORG] [--dry-run]`.
import { applyRetention, type PruneReport } from "../retention/apply.ts";
import type { RetentionPolicy } from "../store/retention-store.ts";
import { describePolicy } from "../retention/describe.ts";
import type { Handler, HandlerOptions } from "./handler.ts";
import { need, out, printJson, UsageError } from "./output.ts";

const MiB = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;

/** "none" or a whole number of days ≥ 1. */
function days(value: string | undefined, flag: string): number | null {
  if (value === undefined || value === "none") return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a whole number of days (1 or more) or none, got "${value}"`);
  return n;
}

function policyFrom(opts: HandlerOptions): RetentionPolicy {
  const keep = Number(opts.keepVersions ?? "1");
  if (!Number.isInteger(keep) || keep < 1) throw new UsageError(`--keep-versions must be a whole number (1 or more), got "${opts.keepVersions}"`);
  return { headDays: days(opts.headDays, "--head-days"), replicateDays: days(opts.replicateDays, "--replicate-days"), keepVersions: keep };
}

const reportLine = (r: PruneReport) =>
  !r.policy
    ? `${r.org}: no retention policy, nothing pruned (${r.kept} profiles kept)`
    : `${r.org}: ${r.dryRun ? "would prune" : "pruned"} ${r.pruned} profile${r.pruned === 1 ? "" : "s"} (${MiB(r.bytes)}), kept ${r.kept}`;

export const RETENTION_COMMANDS: Record<string, Handler> = {
  "retention set": async (store, args, _json, opts) => {
    const [org] = need(args, 1, "retention set ORG [--head-days N|none] [--replicate-days N|none] [--keep-versions K]");
    const policy = policyFrom(opts);
    await store.setRetentionPolicy(org!, policy);
    out(`retention for ${org}: ${describePolicy(policy)}; the server applies it every hour (runner admin captures prune ${org} --dry-run shows what it would remove now)`);
  },
  "retention show": async (store, args, json) => {
    const [org] = need(args, 1, "retention show ORG");
    const [policy, usage] = await Promise.all([store.getRetentionPolicy(org!), store.storageUsage(org!)]);
    if (json) return printJson({ org, policy, storage: usage });
    out(`retention for ${org}: ${describePolicy(policy)}`);
    out(`storage: ${usage.profiles} profiles, ${MiB(usage.profileBytes)}; diffs ${MiB(usage.diffBytes)}; ${usage.pruned} captures pruned so far`);
  },
  "captures prune": async (store, args, json, opts) => {
    if (args.length > 1) throw new UsageError("expected: runner admin captures prune [ORG] [--dry-run] [--json]");
    const orgs = args.length ? args : await store.listRetentionOrgs();
    const reports: PruneReport[] = [];
    for (const org of orgs) reports.push(await applyRetention(store, org, { now: Date.now(), dryRun: opts.dryRun ?? false }));
    if (json) return printJson(reports.map((r) => ({ org: r.org, policy: r.policy, dry_run: r.dryRun, kept: r.kept, pruned: r.pruned, bytes: r.bytes })));
    if (reports.length === 0) return out("no organization has a retention policy: nothing to prune (runner admin retention set ORG …)");
    for (const r of reports) out(reportLine(r));
  },
};
