// A deploy history of one workload, pushed as the Profiler would push it (three captures per
// version: head and two replicates): 1.0.0 → 1.1.0 regresses `target`; 1.2.0 puts it back (an
// improvement against 1.1.0); 1.2.0 also runs in staging. The compare and list tests read it.
import { makeProgram, rng, version } from "../fixtures/profiles/synthetic.ts";
import type { Web } from "./web-harness.ts";

const full = { probes_requested: 1, probes_attached: 1, missing: [] };

/** Pushes the history into org "acme"; the request ids per "version/env", head first. */
export async function seedDeployHistory(web: Web): Promise<Record<string, string[]>> {
  const ids: Record<string, string[]> = {};
  const p = makeProgram({ seed: 11, stacks: 150, leaves: 50, cv: 0.01, targetShare: 0.02 });
  const r = rng(5);
  const versions: Array<[string, string, number]> = [["1.0.0", "prod", 1], ["1.1.0", "prod", 1.5], ["1.2.0", "prod", 1], ["1.2.0", "staging", 1]];
  for (const [v, env, k] of versions) {
    const caps = version(p, r, 3, { samples: 100_000, change: k === 1 ? undefined : { target: k } });
    const key = `${v}/${env}`;
    ids[key] = [await web.pushCapture("acme", { workload: "shop", version: v, env }, caps[0]!, full)];
    for (const c of caps.slice(1)) ids[key]!.push(await web.pushCapture("acme", { workload: "shop", version: v, env, kind: "replicate" }, c, full));
  }
  return ids;
}
