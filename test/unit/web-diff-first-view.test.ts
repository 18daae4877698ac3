// Issue 30: the capture screen's first view is the verdict and each cause with its change and
// interval; how it was tested (tests per axis, the promise, the noise) sits behind a toggle below;
// a secondary change (a caller, shared C code) is never shown as a regression. On the diff witness
// computes for an interpreter-shaped service whose one function got 40% slower.
import { describe, expect, test } from "bun:test";
import { diffCaptures } from "../../src/witness/index.ts";
import { diffBody } from "../../src/server/web/diff-view.ts";
import { interpreterSibling } from "../fixtures/profiles/service-trials.ts";

describe("the diff's first view (capture screen and comparison)", () => {
  const result = diffCaptures(interpreterSibling(0));
  const page = diffBody({ result, flames: [], absent: [], jsonHref: "/x" }).toString();

  test("verdict, then the causes list, then the testing detail behind a toggle, then the rest", () => {
    const at = (needle: string) => page.indexOf(needle);
    expect(at('id="verdict"')).toBeGreaterThanOrEqual(0);
    expect(at('id="causes"')).toBeGreaterThan(at('id="verdict-reason"'));
    expect(at('<details class="testing" id="testing"><summary>How this was tested</summary>')).toBeGreaterThan(at('id="causes"'));
    expect(at('class="powers"')).toBeGreaterThan(at('id="testing"'));
    expect(at("Ranked changes")).toBeGreaterThan(at('id="testing"'));
  });

  test("each cause with its change and interval, and nothing else in the list", () => {
    const items = [...page.matchAll(/<li class="cause" data-function="([^"]+)" data-axis="cpu">(.*?)<\/li>/g)];
    expect(items.map((m) => m[1])).toEqual(["apply_discounts"]);
    const c = result.changes.find((x) => x.function === "apply_discounts" && x.flagged)!;
    const pct = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`;
    expect(items[0]![2]).toContain(`${pct(c.relative_change)} <span class="muted">[${pct(c.interval[0])}, ${pct(c.interval[1])}]`);
  });

  test("a secondary change is labelled so, with what explains it, never as a regression", () => {
    const rows = [...page.matchAll(/<tr class="([^"]*)" data-axis="cpu" data-kind="\w+"><td class="fn">([^<]+)<\/td>(.*?)<\/tr>/gs)];
    const secondary = rows.filter((m) => m[3]!.includes('class="chg secondary"'));
    expect(secondary.length).toBeGreaterThan(0);
    for (const m of secondary) {
      const badge = /<span class="chg [^"]+">[^<]*<\/span>/.exec(m[3]!)![0];
      expect({ f: m[2], cls: m[1], badge, explained: m[3]!.includes("explained by apply_discounts") }).toEqual({ f: m[2], cls: "", badge: '<span class="chg secondary">secondary</span>', explained: true });
    }
  });
});
