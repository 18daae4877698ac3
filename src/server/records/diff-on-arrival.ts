// When a profile is pushed: keep it, and answer "what changed" right away.
//
// A head of version V is compared with the latest pushed head of the prior version of the same
// (workload, env) — "prior" meaning the latest other version captured before it — together with
// that version's replicates (its noise floor). The after side is V's head plus every replicate of V
// pushed so far, so each new replicate of V re-runs the diff and can confirm a suspect change
// (the confirmation window). The record always says which capture it was compared with, or why
// there is none.
//
// A head that is no baseline is skipped for the one before it, and the note names it and why: one
// whose profile was refused at its push (so none was kept), or whose stored profile cannot be read
// now. All the reading and comparing runs in a worker within a budget (../off-loop/run-in-worker.ts); the pushed
// profile is refused, not kept, when it is not a ptop stream within ptop's own bounds.

import type { Logger } from "../../log.ts";
import type { Store } from "../store/store.ts";
import type { Baseline } from "../store/profiler-store.ts";
import type { CaptureRecord } from "../store/types.ts";
import type { DiffJob, JobProfile } from "./diff-job.ts";
import { DIFF_BUDGET, runDiffJobInWorker, type Budget } from "../off-loop/run-in-worker.ts";

/** Heads skipped before giving up on a baseline: a run of refused versions is a problem to see, not to search past. */
const MAX_SKIPPED_HEADS = 5;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const profileName = (r: CaptureRecord) => `${r.version}/${r.kind}/${r.requestId}.jsonl`;

export async function storeAndDiff(
  deps: { store: Store; logger: Logger; now: () => number; budget?: Budget },
  record: CaptureRecord,
  profileGz: Uint8Array,
  instanceId: string,
): Promise<void> {
  const { store } = deps;
  const saveNote = (requestId: string, note: string) =>
    store.saveDiff({ requestId, comparedWith: null, note, verdict: null, json: null, html: null, createdAt: deps.now() });
  const pushed: JobProfile = { requestId: record.requestId, name: profileName(record), gz: profileGz };

  const afterRecords = await store.listPushedOfVersion(record.orgName, record.workload, record.env, record.version);
  const afterHead = afterRecords.filter((r) => r.kind === "head").at(-1);
  // The diff belongs to the head of V; a replicate refreshes that head's diff.
  const target = afterHead?.requestId ?? record.requestId;
  let baseline = afterHead ? await store.findBaseline(record.orgName, record.workload, record.env, record.version, afterHead.createdAt) : null;
  const skipped: string[] = [];
  const excluded = new Set<string>();
  let kept = false;
  // The prior version's profiles removed by retention: that is the baseline, and it is gone. The
  // diff says so rather than comparing with an older version a user did not deploy before this one.
  let pruned: { head: CaptureRecord; at: number } | null = null;
  const skipHead = async (b: Baseline, why: string) => {
    skipped.push(`the head of version ${b.head.version} (${b.head.requestId}) was skipped: ${why}`);
    excluded.add(b.head.requestId);
    return skipped.length > MAX_SKIPPED_HEADS ? null : store.findBaseline(record.orgName, record.workload, record.env, record.version, b.head.createdAt);
  };

  for (;;) {
    // A head whose push was refused kept no profile: its own note says why.
    while (baseline && !(await store.getProfile(baseline.head.requestId))) {
      const at = await store.prunedAt(baseline.head.requestId);
      if (at !== null) {
        pruned = { head: baseline.head, at };
        baseline = null;
        break;
      }
      const why = (await store.getDiff(baseline.head.requestId))?.note ?? "no profile of it is stored";
      baseline = await skipHead(baseline, why);
    }
    const job: DiffJob = { pushed, before: [], after: [] };
    if (afterHead && baseline) {
      job.before = await profilesOf([baseline.head, ...baseline.replicates], record, store, excluded);
      job.after = await profilesOf([afterHead, ...afterRecords.filter((r) => r.requestId !== afterHead.requestId)], record, store, excluded);
    }
    const outcome = await runDiffJobInWorker(job, deps.budget ?? DIFF_BUDGET);
    const refusal = outcome.kind === "refused" ? outcome.reason : outcome.kind === "over_budget" && !outcome.pushedRead ? `reading it went over the diff's budget: ${outcome.why}` : null;
    if (refusal !== null) {
      // Not kept: every later view and diff would pay for it again. The record says why.
      deps.logger.warn({ request_id: record.requestId, instance_id: instanceId, err: refusal }, "pushed profile refused");
      await saveNote(record.requestId, `the pushed profile was not kept: ${refusal}`);
      return;
    }
    if (!kept) await store.saveProfile(record.requestId, profileGz, instanceId, deps.now());
    kept = true;
    const skippedNote = skipped.length ? `; ${skipped.join("; ")}` : "";
    switch (outcome.kind) {
      case "checked":
        if (!afterHead) return void (await saveNote(record.requestId, `no head capture of version ${record.version} yet: replicates are compared once the head is pushed`));
        if (pruned) return void (await saveNote(target, baselinePrunedNote(pruned.head, pruned.at)));
        return void (await saveNote(target, `no earlier version of ${record.workload}${record.env ? ` (${record.env})` : ""} has a pushed head capture that can be compared: nothing to compare with yet${skippedNote}`));
      case "unreadable":
        if (baseline && outcome.requestId === baseline.head.requestId) baseline = await skipHead(baseline, outcome.reason);
        else {
          skipped.push(`capture ${outcome.requestId} was left out: ${outcome.reason}`);
          excluded.add(outcome.requestId);
        }
        continue;
      case "failed":
        return void (await saveNote(target, `the diff could not be computed: ${outcome.reason}${skippedNote}`));
      case "over_budget":
        deps.logger.warn({ request_id: target, why: outcome.why }, "diff over budget");
        return void (await saveNote(target, `the diff was not computed: ${outcome.why}, over the diff's budget${skippedNote}`));
      case "diff": {
        const head = baseline!.head;
        await store.saveDiff({
          requestId: target,
          comparedWith: { requestId: head.requestId, version: head.version },
          note: `compared with the head of version ${head.version} (${head.requestId}; ${plural(outcome.before - 1, "replicate")}) using ${plural(outcome.after - 1, "replicate")} of ${record.version}${skippedNote}${outcome.notes.map((n) => `; ${n}`).join("")}`,
          verdict: outcome.verdict,
          json: outcome.json,
          html: outcome.html,
          createdAt: deps.now(),
        });
        deps.logger.info({ request_id: target, compared_with: head.requestId, verdict: outcome.verdict, skipped: skipped.length || undefined }, "diff computed");
        return;
      }
    }
  }
}

/** The note of a diff whose baseline retention pruned (capture-status.ts reads its first words). */
export function baselinePrunedNote(head: CaptureRecord, at: number): string {
  return `${BASELINE_PRUNED}: the profiles of version ${head.version} (head ${head.requestId}) were removed by the organization's retention policy on ${new Date(at).toISOString().slice(0, 10)}; nothing to compare with`;
}
export const BASELINE_PRUNED = "baseline pruned";

/** The stored profiles of `records` (the pushed one by reference), leaving out those not stored or excluded. */
async function profilesOf(records: CaptureRecord[], pushed: CaptureRecord, store: Store, excluded: Set<string>): Promise<JobProfile[]> {
  const out: JobProfile[] = [];
  for (const r of records) {
    if (excluded.has(r.requestId)) continue;
    if (r.requestId === pushed.requestId) {
      out.push({ requestId: r.requestId, name: profileName(r), gz: new Uint8Array(0) });
      continue;
    }
    const gz = await store.getProfile(r.requestId);
    if (gz) out.push({ requestId: r.requestId, name: profileName(r), gz });
  }
  return out;
}
