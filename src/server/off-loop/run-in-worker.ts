// Work that reads profiles runs in a worker, never on the server's event loop (which answers
// /healthz, the API and every tenant's tunnel): the diff on arrival, the capture screen's flame
// data and the compare screen's diff. Each job gets a fresh worker and a time and memory budget; past either the worker is
// terminated and the job answered `over_budget`, so a hostile or merely enormous profile costs at
// most the budget. Jobs of a kind run one at a time, so pushes or views arriving together (any
// tenants) cannot add their memory up; a diff and a view may run side by side.
import { PUSHED_READ, type DiffJob, type DiffJobResult } from "../records/diff-job.ts";
import type { CaptureViewJob, CaptureViewParts } from "../web/capture-view-job.ts";
import type { CompareJob, runCompareJob } from "../web/compare-job.ts";

export interface Budget {
  timeMs: number;
  /** growth of this process's resident memory over its size when the job started */
  memoryBytes: number;
}

/** A real diff on arrival takes well under a second and tens of MiB. */
export const DIFF_BUDGET: Budget = { timeMs: 60_000, memoryBytes: 512 * 1024 * 1024 };
/** A page is waited for: a shorter budget, and less memory beside a diff that may be running. */
export const VIEW_BUDGET: Budget = { timeMs: 15_000, memoryBytes: 256 * 1024 * 1024 };

export type WorkerJob = { kind: "diff"; job: DiffJob } | { kind: "capture-view"; job: CaptureViewJob } | { kind: "compare"; job: CompareJob };
/** What the worker posts: progress marks, then a result or why it failed. */
export type WorkerMessage = { progress: string } | { result: unknown } | { failed: string };

export type DiffOutcome = DiffJobResult | { kind: "failed"; reason: string } | { kind: "over_budget"; why: string; pushedRead: boolean };

type Run = { kind: "done"; result: unknown } | { kind: "failed"; reason: string } | { kind: "over_budget"; why: string; progress: Set<string> };

const MEMORY_SAMPLE_MS = 25;
// In the compiled runner the worker is a second entry point of the build (scripts/build.ts), named
// by its path under the entry points' common folder, src/; from the sources, beside this file.
const WORKER = import.meta.url.includes("$bunfs") ? "./server/off-loop/worker.ts" : new URL("./worker.ts", import.meta.url).href;

class OneAtATime {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(f: () => Promise<T>): Promise<T> {
    const next = this.tail.then(f);
    this.tail = next.catch(() => {});
    return next;
  }
}
const diffs = new OneAtATime();
const views = new OneAtATime();

export async function runDiffJobInWorker(job: DiffJob, budget: Budget = DIFF_BUDGET): Promise<DiffOutcome> {
  const run = await diffs.run(() => runOne({ kind: "diff", job }, budget));
  if (run.kind === "done") return run.result as DiffJobResult;
  if (run.kind === "failed") return run;
  return { kind: "over_budget", why: run.why, pushedRead: run.progress.has(PUSHED_READ) };
}

/** The capture screen's profile-derived parts, or why they could not be made (worded for the page). */
export async function runCaptureViewJobInWorker(job: CaptureViewJob, budget: Budget = VIEW_BUDGET): Promise<CaptureViewParts | string> {
  const run = await views.run(() => runOne({ kind: "capture-view", job }, budget));
  if (run.kind === "done") return run.result as CaptureViewParts;
  return run.kind === "failed" ? `the flame graphs could not be drawn: ${run.reason}` : `the flame graphs were not drawn: ${run.why}, over the page's budget`;
}

/** The compare screen's diff and flame data, or why not (worded for the page). */
export async function runCompareJobInWorker(job: CompareJob, budget: Budget = VIEW_BUDGET): Promise<ReturnType<typeof runCompareJob>> {
  const run = await views.run(() => runOne({ kind: "compare", job }, budget));
  if (run.kind === "done") return run.result as ReturnType<typeof runCompareJob>;
  return run.kind === "failed" ? `the comparison could not be computed: ${run.reason}` : `the comparison was not computed: ${run.why}, over the page's budget`;
}

function runOne(message: WorkerJob, budget: Budget): Promise<Run> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER);
    const startRss = process.memoryUsage().rss;
    const progress = new Set<string>();
    let done = false;
    const finish = (run: Run) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(watch);
      worker.terminate();
      resolve(run);
    };
    const over = (why: string) => finish({ kind: "over_budget", why, progress });
    const timer = setTimeout(() => over(`it took more than ${budget.timeMs / 1000} s`), budget.timeMs);
    const watch = setInterval(() => {
      if (process.memoryUsage().rss - startRss > budget.memoryBytes) over(`it needed more than ${Math.round(budget.memoryBytes / 2 ** 20)} MiB of memory`);
    }, MEMORY_SAMPLE_MS);
    worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
      const m = event.data;
      if ("progress" in m) progress.add(m.progress);
      else if ("result" in m) finish({ kind: "done", result: m.result });
      else finish({ kind: "failed", reason: m.failed });
    };
    worker.onerror = (event) => finish({ kind: "failed", reason: event.message || "the worker failed" });
    worker.postMessage(message);
  });
}
