// A retention policy in words, as `runner admin retention` and Settings show it.
import type { RetentionPolicy } from "../store/retention-store.ts";

export function describePolicy(p: RetentionPolicy | null): string {
  if (!p) return "no retention policy: every profile is kept";
  const age = (d: number | null, what: string) => (d === null ? `${what} kept` : `${what} kept ${d} day${d === 1 ? "" : "s"}`);
  return `${age(p.headDays, "heads")}, ${age(p.replicateDays, "replicates")}; the latest ${p.keepVersions} version${p.keepVersions === 1 ? "" : "s"} of each workload always kept`;
}
