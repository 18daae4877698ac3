// What the two Profiling-page benches share: how Chromium is started, how first contentful paint
// is read, and the stored diff the list's verdict column reads.
import { diffCaptures } from "../src/witness/diff.ts";
import { makeProgram, rng, version } from "../test/fixtures/profiles/synthetic.ts";

export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

/** Runs in the page: FCP and DOMContentLoaded of the page now loaded; the paint entry can land after "load". */
export const readPaint = () =>
  new Promise<{ fcp: number | null; dcl: number }>((done) => {
    const dcl = (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).domContentLoadedEventEnd;
    new PerformanceObserver((list) => {
      const e = list.getEntriesByName("first-contentful-paint")[0];
      if (e) done({ fcp: e.startTime, dcl });
    }).observe({ type: "paint", buffered: true });
    setTimeout(() => done({ fcp: null, dcl }), 5000);
  });

/** One real witness diff of two 3-capture versions (~110 KB of JSON), stored under many heads. */
export function benchDiffJson(): string {
  const p = makeProgram({ seed: 11, stacks: 150, leaves: 50, cv: 0.01, targetShare: 0.02 });
  const r = rng(5);
  return JSON.stringify(diffCaptures({ before: version(p, r, 3, { samples: 20_000 }), after: version(p, r, 3, { samples: 20_000, change: { target: 1.5 } }) }));
}
