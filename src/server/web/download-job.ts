// Downloads of stored profiles (a capture as pprof, folded or speedscope; one side of a comparison
// merged into folded stacks): read and converted in the server's worker (off-loop/), since a
// profile within ptop's bounds can take seconds to parse and convert.
import type { JobProfile } from "../records/diff-job.ts";
import type { CaptureRecord } from "../store/types.ts";
import { gunzipProfileSync, parseProfile } from "../../witness/index.ts";
import { captureFile, mergedFoldedFile, type DownloadFile } from "./downloads.ts";

export type DownloadJob =
  | { kind: "capture"; profile: JobProfile; record: Pick<CaptureRecord, "workload" | "version" | "env">; format: string; axis: string | null }
  | { kind: "merged"; profiles: JobProfile[]; name: string; axis: string | null };

export function runDownloadJob(job: DownloadJob): DownloadFile {
  const read = (p: JobProfile) => parseProfile(gunzipProfileSync(p.gz, `the stored profile of ${p.requestId}`), p.name);
  try {
    return job.kind === "capture" ? captureFile(job.record, read(job.profile), job.format, job.axis) : mergedFoldedFile(job.name, job.profiles.map(read), job.axis);
  } catch (err) {
    return { missing: `a stored profile could not be read: ${(err as Error).message}` };
  }
}
