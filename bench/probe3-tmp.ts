import { diffCaptures } from "../src/witness/diff.ts";
import * as T from "../test/fixtures/profiles/service-trials.ts";
for (let t = 0; t < 40; t++) {
  const r = diffCaptures(T.interpreterSibling(t));
  const c = T.causes(r);
  if (c.length === 1 && c[0] === "apply_discounts") continue;
  console.log(t, c.join(","), JSON.stringify(r.axes_compared[0]!.dispersion));
  for (const x of r.changes.filter((x) => x.role || ["apply_discounts", "price_cart"].includes(x.function)).slice(0, 14))
    console.log("  ", x.function, x.kind, x.role, x.relative_change.toFixed(3), x.interval.map((v) => v.toFixed(3)).join(" "), x.p.toExponential(1), x.adjusted_p.toExponential(1), "cv", Math.sqrt(x.dispersion).toFixed(3), x.before.share.toFixed(3), x.explained_by.join("/"));
}
