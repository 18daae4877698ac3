// The diff summary on the capture screen says what its counts are (tests of a function's self or
// total cost, distinct ones for the adjustment), and a flagged fall that is relative only (a share
// that fell because another function grew, per second no fall) says so beside its flag and once
// near the verdict. Real diffs of seeded synthetic captures, computed by the server on push.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Change, DiffResult } from "../../src/witness/diff.ts";
import { diffCaptures } from "../../src/witness/diff.ts";
import { diffBody } from "../../src/server/web/diff-view.ts";
import { relativeFallNote } from "../../src/server/web/relative-fall.ts";
import { makeProgram, rng, version } from "../fixtures/profiles/synthetic.ts";
import { startWeb, type Client, type Web } from "./web-harness.ts";

setDefaultTimeout(30_000);
let web: Web;
let member: Client;
let big: string;
let small: string;
const FULL = { probes_requested: 1, probes_attached: 1, missing: [] };

// Four leaf functions (too few for median-ratio: the verdict compares shares). In 2, `target`
// doubles its cost and leaf_1 halves its own; leaf_2 and leaf_3 do exactly the work they did.
const smallProgram = () => makeProgram({ seed: 3, stacks: 4, leaves: 4, cv: 0.01, targetShare: 0.3, depth: 3 });
const SMALL_CHANGE = { target: 2, leaf_1: 0.5 };

async function pushVersions(workload: string, p: ReturnType<typeof makeProgram>, samples: number, change: Record<string, number>, seed: number): Promise<string> {
  const r = rng(seed);
  const before = version(p, r, 3, { samples });
  const after = version(p, r, 3, { samples, change });
  await web.pushCapture("acme", { workload, version: "1" }, before[0]!, FULL);
  for (const c of before.slice(1)) await web.pushCapture("acme", { workload, version: "1", kind: "replicate" }, c, FULL);
  const head = await web.pushCapture("acme", { workload, version: "2" }, after[0]!, FULL);
  for (const c of after.slice(1)) await web.pushCapture("acme", { workload, version: "2", kind: "replicate" }, c, FULL);
  return head;
}

beforeAll(async () => {
  web = await startWeb();
  member = await web.member("acme", "m@acme.test", "member");
  // The capture screen's own program (150 stacks, 50 leaves, target regressed by half).
  big = await pushVersions("shop", makeProgram({ seed: 11, stacks: 150, leaves: 50, cv: 0.01, targetShare: 0.02 }), 100_000, { target: 1.5 }, 5);
  small = await pushVersions("tiny", smallProgram(), 50_000, SMALL_CHANGE, 7);
});
afterAll(() => web.stop());

async function screen(id: string): Promise<{ html: string; diff: DiffResult }> {
  const html = await (await member.get(`/profiling/captures/${id}`)).text();
  const diff = (await (await member.get(`/profiling/captures/${id}/download/diff.json`)).json()) as DiffResult;
  return { html, diff };
}

/** The page's text with tags dropped and entities of apostrophes undone. */
const text = (html: string) => html.replace(/<[^>]+>/g, "").replaceAll("&#39;", "'");

/** Tests whose count vectors are identical give identical results: group the diff's changes so. */
function distinctResults(changes: Change[], axis: string): number {
  return new Set(changes.filter((c) => c.axis === axis).map((c) => JSON.stringify([c.before.value, c.after.value, c.p, c.interval]))).size;
}

describe("the counts in the summary", () => {
  test("tests, functions and distinct tests are named as what they are, with numbers the diff JSON bears out", async () => {
    for (const id of [big, small]) {
      const { html, diff } = await screen(id);
      const a = diff.axes_compared.find((x) => x.axis === "cpu")!;
      const rows = diff.changes.filter((c) => c.axis === "cpu");
      const functions = new Set(rows.map((c) => c.function)).size;
      // What the words claim, checked against the diff itself: a test is one row (a function's
      // self or total), and tests with identical counts come out identical, one per distinct test.
      expect({ tested: rows.length, distinct: distinctResults(diff.changes, "cpu"), maxPerFunction: Math.max(...[...Map.groupBy(rows, (c) => c.function).values()].map((g) => g.length)) }).toEqual({ tested: a.tested, distinct: a.distinct_tests, maxPerFunction: 2 });
      expect(a.distinct_tests).toBeLessThan(a.tested);
      const t = text(html);
      expect(t).toContain(`cpu: ${a.flagged} of ${a.tested} tests flagged. A test is one function's self or total cost: ${functions} functions above the testing floor`);
      expect(t).toContain(`${a.distinct_tests} of the ${a.tested} tests are distinct: tests with the same counts in every capture (a leaf's self and total; a caller and a callee that always appear together) are one test, and the adjustment for multiple testing counts it once`);
      expect(t).toContain(`after adjusting for the ${diff.multiple_testing.tests} distinct tests (family-wise error ≤ 0.05)`);
      expect(t).not.toContain("tested functions flagged");
    }
  });
});

describe("a flagged fall that is relative only", () => {
  test("shares of bystanders fell because target grew: their rows and the verdict say per second they did not fall", async () => {
    const { html, diff } = await screen(small);
    expect(diff.axes_compared.map((a) => a.normalisation)).toEqual(["share"]);
    expect(html).toContain("changed ↑↓ regression and improvement");
    const row = (fn: string, kind: string) => {
      const m = new RegExp(`<tr class="[^"]*" data-axis="cpu" data-kind="${kind}"><td class="fn">${fn}</td>[\\s\\S]*?</tr>`).exec(html);
      expect(m).not.toBeNull();
      return text(m![0]);
    };
    const flaggedDown = diff.changes.filter((c) => c.flagged && c.direction === "down");
    // leaf_2 and leaf_3 did the same work: flagged down on shares, unchanged per second.
    for (const fn of ["leaf_2", "leaf_3"]) {
      const c = flaggedDown.find((x) => x.function === fn && x.kind === "self")!;
      const rate = c.normalisations.rate!;
      expect({ fn, rateFlagged: rate.flagged, spansZero: rate.interval[0] <= 0 && rate.interval[1] >= 0 }).toEqual({ fn, rateFlagged: false, spansZero: true });
      expect(row(fn, "self")).toMatch(/↓ improvement.*Relative only: its share fell because the others grew; per second: unchanged within noise \(-\d+\.\d% \[-\d+\.\d%, \+\d+\.\d%\]\)\. Improvement: shrank by/);
    }
    // leaf_1 really halved: per second it fell too, and its row says nothing of the kind.
    const leaf1 = flaggedDown.find((x) => x.function === "leaf_1" && x.kind === "self")!;
    expect(leaf1.normalisations.rate!.flagged && leaf1.normalisations.rate!.relative_change < -0.3).toBe(true);
    expect(row("leaf_1", "self")).not.toContain("Relative only");
    // Near the verdict, once: how many of the flagged falls are relative only.
    const relative = flaggedDown.filter((c) => !(c.normalisations.rate!.flagged && c.normalisations.rate!.relative_change < 0)).length;
    expect(relative).toBeGreaterThan(1);
    const note = /<p class="explain" id="relative-falls">([^<]*)<\/p>/.exec(html)?.[1];
    expect(text(note ?? "")).toBe(`${relative} of the ${flaggedDown.length} flagged falls (↓) are relative only: when one function grows, the others' shares fall although they do no less work. Per second of measured time they show no fall beyond noise; their rows say so.`);
    expect(html.split("Relative only:").length - 1).toBe(relative);
  });

  test("a regression alone under median-ratio gets no such note", async () => {
    const { html, diff } = await screen(big);
    expect(diff.axes_compared.map((a) => a.normalisation)).toEqual(["median-ratio"]);
    expect(diff.changes.some((c) => c.flagged && c.direction === "down")).toBe(false);
    expect(html).not.toContain('id="relative-falls"');
    expect(html).not.toContain("Relative only");
  });

  test("captures without measured time (folded input) get the general explanation once, near the verdict", () => {
    const r = rng(7);
    const p = smallProgram();
    const strip = (cs: ReturnType<typeof version>) => cs.map((c) => ({ ...c, meta: { ...c.meta, measuredSec: undefined } }));
    const diff = diffCaptures({ before: strip(version(p, r, 3, { samples: 50_000 })), after: strip(version(p, r, 3, { samples: 50_000, change: SMALL_CHANGE })) });
    expect(diff.changes.some((c) => c.flagged && c.direction === "down")).toBe(true);
    expect(diff.changes.every((c) => c.normalisations.rate === undefined && relativeFallNote(diff, c) === null)).toBe(true);
    const html = diffBody({ result: diff, flames: [], absent: [], jsonHref: "/x" }).text;
    expect(text(/<p class="explain" id="relative-falls">([^<]*)<\/p>/.exec(html)![1]!)).toBe(
      "A flagged fall (↓) here may be relative only: costs are compared relative to the rest, so when one function grows the others' shares fall although they do no less work. These captures have no measured time, so the diff cannot tell per second.",
    );
    expect(html).not.toContain("Relative only");
  });
});
