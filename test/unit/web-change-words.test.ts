// Each change in words (issue 19): regression vs improvement, an undecided change's captures that
// would decide (witness's own figure), and an interval that excludes zero on an unflagged change explained — here on
// the real diff witness computes for a regression of `target`, and on that diff's own rows.
import { describe, expect, test } from "bun:test";
import { diffCaptures, type Change } from "../../src/witness/diff.ts";
import { changeWords } from "../../src/server/web/change-words.ts";
import { changePlan } from "../../src/witness/stats/power.ts";
import { makeProgram, rng, version } from "../fixtures/profiles/synthetic.ts";

const p = makeProgram({ seed: 11, stacks: 150, leaves: 50, cv: 0.01, targetShare: 0.02 });
const r = rng(5);
const d = diffCaptures({ before: version(p, r, 3, { samples: 100_000 }), after: version(p, r, 3, { samples: 100_000, change: { target: 1.5 } }) });
const opts = { q: d.q, minEffect: d.min_effect, perSide: 3, tests: d.multiple_testing.tests };

describe("change words", () => {
  test("a flagged increase is a regression, a flagged decrease an improvement", () => {
    const up = d.changes.find((c) => c.function === "target" && c.flagged)!;
    expect(changeWords(up, opts)).toMatchObject({ kind: "regression", needed: null, intervalNote: null });
    const down: Change = { ...up, direction: "down", relative_change: -0.3, interval: [-0.4, -0.2] };
    expect(changeWords(down, opts).text).toMatch(/^Improvement: shrank by 30\.0%/);
  });

  test("every unflagged row whose interval excludes no change says why it is not flagged", () => {
    const odd = d.changes.filter((c) => !c.flagged && (c.interval[0] > 0 || c.interval[1] < 0));
    for (const c of odd) expect(changeWords(c, opts).intervalNote).toContain("the verdict uses the adjusted p");
    for (const c of d.changes.filter((x) => !x.flagged && x.interval[0] <= 0 && x.interval[1] >= 0)) expect(changeWords(c, opts).intervalNote).toBeNull();
  });

  test("an undecided change says the captures per version witness computed would decide it; more with more noise", () => {
    const base = d.changes.find((c) => c.function === "target" && c.flagged)!;
    const undecided = d.changes.filter((c) => c.verdict === "insufficient" && c.captures_needed !== null);
    expect(undecided.length).toBeGreaterThan(0);
    for (const c of undecided) {
      const w = changeWords(c, opts);
      expect({ needed: w.needed, power: w.power }).toEqual({ needed: c.captures_needed, power: c.power });
      expect(w.text).toContain(`about ${c.captures_needed} captures per version (${c.captures_needed! - 3} more on each side) would decide`);
    }
    const plan = (se: number) => changePlan({ logRatio: 0.077, seNull: se, se, level: 0.001, perSide: 3, decided: false }, { detectEffect: 0.1, minEffect: 0.05 });
    expect(plan(0.04).capturesNeeded!).toBeGreaterThan(3);
    expect(plan(0.08).capturesNeeded!).toBeGreaterThan(plan(0.04).capturesNeeded!);
    expect(plan(3).capturesNeeded).toBeNull();
    expect(changeWords({ ...base, flagged: false, verdict: "insufficient", captures_needed: null }, opts).text).toContain("more than 200 captures per version");
  });
});
