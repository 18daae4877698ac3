// What a capture actually measured, read from the probe records of a ptop stream.
import type { ProbeName, ProbeRecord } from "../protocol/profile-stream.ts";
import type { Instrumentation } from "../protocol/tunnel.ts";

export function instrumentationFromStream(stream: string, requested: readonly ProbeName[]): Instrumentation {
  const probes = new Map<ProbeName, ProbeRecord>();
  for (const line of stream.split("\n")) {
    if (!line.includes('"type":"probe"')) continue;
    try {
      const rec = JSON.parse(line) as ProbeRecord;
      if (rec.type === "probe") probes.set(rec.name, rec);
    } catch {
      // A malformed line is the witness's problem to report; here we only count probes.
    }
  }
  const attached: ProbeName[] = [];
  const notAttached: Instrumentation["not_attached"] = [];
  for (const probe of requested) {
    const rec = probes.get(probe);
    if (rec?.attached) attached.push(probe);
    else notAttached.push({ probe, reason: rec?.reason ?? "the collector did not report this probe" });
  }
  return { requested: [...requested], attached, not_attached: notAttached };
}
