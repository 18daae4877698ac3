// The worker a diff on arrival runs in (diff-runner.ts starts one per job): the event loop that
// answers /healthz, the API and every tenant's tunnel never waits for a diff.
import { runDiffJob, type DiffJob } from "./diff-job.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<DiffJob>) => {
  try {
    self.postMessage({ result: runDiffJob(event.data, (what) => self.postMessage({ progress: what })) });
  } catch (err) {
    self.postMessage({ result: { kind: "failed", reason: (err as Error).message } });
  }
};
