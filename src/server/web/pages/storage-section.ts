// Settings → Storage: what the organization's profiles and diffs take, and the retention policy
// that bounds it (set with `runner admin retention set`).
import type { RetentionPolicy, StorageUsage } from "../../store/retention-store.ts";
import { describePolicy } from "../../retention/describe.ts";
import { html, type Html } from "../html.ts";

const MiB = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;

export function storageSection(usage: StorageUsage, policy: RetentionPolicy | null): Html {
  return html`<section class="card" aria-labelledby="storage-h"><h2 id="storage-h">Storage</h2>
<p id="storage-used"><strong>${MiB(usage.profileBytes + usage.diffBytes)}</strong> used: ${usage.profiles} profiles (${MiB(usage.profileBytes)}) and their diffs (${MiB(usage.diffBytes)}); ${usage.pruned} captures pruned so far.</p>
<p id="retention-policy">Retention: ${describePolicy(policy)}. The server applies it every hour; an operator sets it with <code>runner admin retention set</code>.</p>
</section>`;
}
