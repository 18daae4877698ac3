import { diffCaptures } from "../src/witness/diff.ts";
import { captures, rng, service } from "../test/fixtures/profiles/service-shape.ts";
for (const t of [2, 10, 13, 26]) {
  const r = rng(30_100 + t);
  const s = service({ named: { apply_discounts: 0.25, price_cart: 0.2, parse_order: 0.15, compute_tax: 0.1 }, tail: 12, cv: 0.02, python: true, bursty: 8, burstyShare: 0.04, r });
  const tr = { before: captures(s, r, { name: "v1" }), after: captures(s, r, { name: "v2", change: { apply_discounts: 1.4 } }) };
  const d = diffCaptures(tr);
  console.log(t, s.owners.map((o) => `${o.name}:${o.share.toFixed(3)}:${o.cv.toFixed(3)}`).join(" "));
  for (const c of d.changes.filter((c) => c.kind === "self" && !["_PyEval_EvalFrameDefault", "long_mul", "dict_lookup", "PyObject_Malloc"].includes(c.function)).slice(0, 30)) console.log("   ", c.function, c.role, c.relative_change.toFixed(3), c.p.toExponential(1), c.adjusted_p.toExponential(1), "cv", Math.sqrt(c.dispersion).toFixed(3));
}
