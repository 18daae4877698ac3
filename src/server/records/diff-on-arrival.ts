// When a profile is pushed: keep it, and answer "what changed" right away.
//
// A head of version V is compared with the latest pushed head of the prior version of the same
// (workload, env) — "prior" meaning the latest other version captured before it — together with
// that version's replicates (its noise floor). The after side is V's head plus every replicate of V
// pushed so far, so each new replicate of V re-runs the diff and can confirm a suspect change
// (the confirmation window). The record always says which capture it was compared with, or why
// there is none.

import type { Logger } from "../../log.ts";
import { gunzipProfile, parseProfile, diffCaptures, renderDiffHtml, type Capture } from "../../witness/index.ts";
import type { Store } from "../store/store.ts";
import type { CaptureRecord } from "../store/types.ts";

export async function storeAndDiff(deps: { store: Store; logger: Logger; now: () => number }, record: CaptureRecord, profileGz: Uint8Array, instanceId: string): Promise<void> {
  const { store } = deps;
  // A profile that does not inflate within MAX_PROFILE_BYTES (a gzip bomb, or corrupt) is not
  // kept: the record says why instead of every later view and diff paying for it again.
  let pushed: Capture;
  try {
    pushed = parseProfile(await gunzipProfile(profileGz, "the pushed profile"), `${record.version}/${record.kind}/${record.requestId}.jsonl`);
  } catch (err) {
    const note = `the pushed profile was not kept: ${(err as Error).message}`;
    deps.logger.warn({ request_id: record.requestId, instance_id: instanceId, err: (err as Error).message }, "pushed profile refused");
    await store.saveDiff({ requestId: record.requestId, comparedWith: null, note, verdict: null, json: null, html: null, createdAt: deps.now() });
    return;
  }
  await store.saveProfile(record.requestId, profileGz, instanceId, deps.now());

  const afterRecords = await store.listPushedOfVersion(record.orgName, record.workload, record.env, record.version);
  const afterHead = afterRecords.filter((r) => r.kind === "head").at(-1);
  const noDiff = (requestId: string, note: string) =>
    store.saveDiff({ requestId, comparedWith: null, note, verdict: null, json: null, html: null, createdAt: deps.now() });
  if (!afterHead) {
    await noDiff(record.requestId, `no head capture of version ${record.version} yet: replicates are compared once the head is pushed`);
    return;
  }
  const baseline = await store.findBaseline(record.orgName, record.workload, record.env, record.version, afterHead.createdAt);
  // The diff belongs to the head of V; a replicate refreshes that head's diff.
  const target = afterHead.requestId;
  if (!baseline) {
    await noDiff(target, `no earlier version of ${record.workload}${record.env ? ` (${record.env})` : ""} has a pushed head capture: nothing to compare with yet`);
    return;
  }

  const load = async (r: CaptureRecord): Promise<Capture | null> => {
    if (r.requestId === record.requestId) return pushed;
    const gz = await store.getProfile(r.requestId);
    return gz ? parseProfile(await gunzipProfile(gz, `the stored profile of ${r.requestId}`), `${r.version}/${r.kind}/${r.requestId}.jsonl`) : null;
  };
  // Head first on each side: witness treats the first capture as the head, the rest as replicates.
  const orderedAfter = [afterHead, ...afterRecords.filter((r) => r.requestId !== afterHead.requestId)];
  let before: Capture[], after: Capture[];
  try {
    before = (await Promise.all([baseline.head, ...baseline.replicates].map(load))).filter((c): c is Capture => c !== null);
    after = (await Promise.all(orderedAfter.map(load))).filter((c): c is Capture => c !== null);
  } catch (err) {
    // A stored profile past the limit (kept before the limit existed): say so on the record.
    await noDiff(target, `the diff could not be computed: ${(err as Error).message}`);
    return;
  }
  const diff = diffCaptures({ before, after });
  await store.saveDiff({
    requestId: target,
    comparedWith: { requestId: baseline.head.requestId, version: baseline.head.version },
    note: `compared with the head of version ${baseline.head.version} (${baseline.head.requestId}; ${before.length - 1} replicate${before.length === 2 ? "" : "s"}) using ${after.length - 1} replicate${after.length === 2 ? "" : "s"} of ${record.version}`,
    verdict: diff.verdict,
    json: JSON.stringify(diff),
    html: renderDiffHtml(diff, { before, after }),
    createdAt: deps.now(),
  });
  deps.logger.info({ request_id: target, compared_with: baseline.head.requestId, verdict: diff.verdict }, "diff computed");
}
