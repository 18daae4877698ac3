// The worker that jobs reading profiles run in (run-in-worker.ts starts one per job).
import { runDiffJob } from "../records/diff-job.ts";
import { runCaptureViewJob } from "../web/capture-view-job.ts";
import type { WorkerJob, WorkerMessage } from "./run-in-worker.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<WorkerJob>) => {
  const post = (m: WorkerMessage) => self.postMessage(m);
  const job = event.data;
  try {
    post({ result: job.kind === "diff" ? runDiffJob(job.job, (what) => post({ progress: what })) : runCaptureViewJob(job.job) });
  } catch (err) {
    post({ failed: (err as Error).message });
  }
};
