// The worker that jobs reading profiles run in (run-in-worker.ts starts one per job).
import { runDiffJob } from "../records/diff-job.ts";
import { runCaptureViewJob } from "../web/capture-view-job.ts";
import { runCompareJob } from "../web/compare-job.ts";
import type { WorkerJob, WorkerMessage } from "./run-in-worker.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<WorkerJob>) => {
  const post = (m: WorkerMessage) => self.postMessage(m);
  const job = event.data;
  try {
    const result = job.kind === "diff" ? runDiffJob(job.job, (what) => post({ progress: what })) : job.kind === "compare" ? runCompareJob(job.job) : runCaptureViewJob(job.job);
    post({ result });
  } catch (err) {
    post({ failed: (err as Error).message });
  }
};
