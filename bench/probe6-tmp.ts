import { diffCaptures } from "../src/witness/diff.ts";
import * as T from "../test/fixtures/profiles/service-trials.ts";
for (let t = 0; t < 12; t++) {
  const d = diffCaptures(T.fivePercentShare(t));
  const c = d.changes.find((c) => c.function === "target" && c.kind === "self")!;
  const a = d.axes_compared[0]!;
  console.log(t, c.flagged, c.relative_change.toFixed(3), "p", c.p.toExponential(1), "adj", c.adjusted_p.toExponential(1), "cv", Math.sqrt(c.dispersion).toFixed(3), "pool", a.dispersion.run_to_run_cv.toFixed(3), "d0", a.dispersion.moderation?.prior_df?.toFixed(1), "tests", d.multiple_testing.families.map((f) => f.tests).join("/"), "power", c.power.toFixed(2), "floor", c.noise_floor.toFixed(3));
}
