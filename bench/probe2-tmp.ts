import { diffCaptures } from "../src/witness/diff.ts";
import * as T from "../test/fixtures/profiles/service-trials.ts";
for (let t = 0; t < 20; t++) {
  const r = diffCaptures(T.sameVersion(t));
  const f = r.changes.filter((c) => c.flagged);
  if (!f.length) continue;
  const a = r.axes_compared[0]!;
  console.log(t, JSON.stringify(a.dispersion));
  for (const c of f) console.log("  ", c.function, c.kind, c.relative_change.toFixed(3), c.interval.map((x) => x.toFixed(3)), c.p.toExponential(2), c.dispersion.toFixed(4), c.before.share.toFixed(4));
  for (const c of r.changes.filter((c) => c.function.startsWith("thread_fn") && c.kind === "self")) console.log("     ", c.function, c.relative_change.toFixed(3), c.p.toExponential(2), "cv", Math.sqrt(c.dispersion).toFixed(3), c.before.value.toFixed(0));
}
