// Runs diff jobs in a worker, one at a time, each within a time and memory budget. Past either
// the worker is terminated and the job answered `over_budget`: a hostile or merely enormous
// profile costs at most the budget, and the server's event loop never waits for it. One at a
// time so that pushes arriving together (any tenants) cannot add their diffs' memory up.
import { PUSHED_READ, type DiffJob, type DiffJobResult } from "./diff-job.ts";

export interface DiffBudget {
  timeMs: number;
  /** growth of this process's resident memory over its size when the job started */
  memoryBytes: number;
}

/** A real diff on arrival takes well under a second and tens of MiB (bench/). */
export const DIFF_BUDGET: DiffBudget = { timeMs: 60_000, memoryBytes: 512 * 1024 * 1024 };

export type DiffOutcome = DiffJobResult | { kind: "failed"; reason: string } | { kind: "over_budget"; why: string; pushedRead: boolean };

const MEMORY_SAMPLE_MS = 25;
// In the compiled runner the worker is a second entry point of the build (scripts/build.ts), named
// by its path under the entry points' common folder, src/; from the sources, beside this file.
const WORKER = import.meta.url.includes("$bunfs") ? "./server/records/diff-worker.ts" : new URL("./diff-worker.ts", import.meta.url).href;
let queue: Promise<unknown> = Promise.resolve();

export function runDiffJobInWorker(job: DiffJob, budget: DiffBudget = DIFF_BUDGET): Promise<DiffOutcome> {
  const run = queue.then(() => runOne(job, budget));
  queue = run.catch(() => {});
  return run;
}

function runOne(job: DiffJob, budget: DiffBudget): Promise<DiffOutcome> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER);
    const startRss = process.memoryUsage().rss;
    let pushedRead = false;
    let done = false;
    const finish = (outcome: DiffOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(watch);
      worker.terminate();
      resolve(outcome);
    };
    const over = (why: string) => finish({ kind: "over_budget", why, pushedRead });
    const timer = setTimeout(() => over(`it took more than ${budget.timeMs / 1000} s`), budget.timeMs);
    const watch = setInterval(() => {
      const grew = process.memoryUsage().rss - startRss;
      if (grew > budget.memoryBytes) over(`it needed more than ${Math.round(budget.memoryBytes / 2 ** 20)} MiB of memory`);
    }, MEMORY_SAMPLE_MS);
    worker.onmessage = (event: MessageEvent<{ progress?: string; result?: DiffOutcome }>) => {
      if (event.data.progress === PUSHED_READ) pushedRead = true;
      if (event.data.result) finish(event.data.result);
    };
    worker.onerror = (event) => finish({ kind: "failed", reason: event.message || "the diff worker failed" });
    worker.postMessage(job);
  });
}
