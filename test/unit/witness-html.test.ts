import { describe, expect, test } from "bun:test";
import { parseFolded } from "../../src/witness/folded.ts";
import { diffCaptures } from "../../src/witness/diff.ts";
import { renderDiffHtml } from "../../src/witness/html.ts";
import { renderDiffTable } from "../../src/witness/table.ts";
import { signedPercent } from "../../src/witness/words.ts";
import { flameAxis } from "../../src/server/web/flame-data.ts";
import { diffBody } from "../../src/server/web/diff-view.ts";
import { APP_JS } from "../../src/server/web/assets/app-js.ts";
import { changeColour } from "../../src/witness/palette.ts";

// Function names come from the target's binaries: untrusted. One of them is hostile here.
const EVIL = `<img src=x onerror="alert(1)">`;
const mk = (i: number, evil: number) =>
  parseFolded(
    Array.from({ length: 20 }, (_, f) => `main;work;f${f} ${2000 + 50 * f + ((i * 7 + f * 3) % 11)}`).join("\n") + `\nmain;${EVIL} ${evil + i}\n`,
    "cpu",
    `c${i}`,
  );
const before = [mk(0, 1000), mk(1, 1000), mk(2, 1000)];
const after = [mk(3, 3000), mk(4, 3000), mk(5, 3000)];
const result = diffCaptures({ before, after });

describe("HTML differential flame graph", () => {
  test("escapes hostile function names everywhere", () => {
    const page = renderDiffHtml(result, { before, after });
    expect(result.changes.some((c) => c.function === EVIL && c.flagged)).toBe(true);
    expect(page).not.toContain("<img");
    expect(page).toContain("&#60;img");
  });
  test("colours only what cleared the noise floor", () => {
    const page = renderDiffHtml(result, { before, after });
    const evilBox = page.split('<div class="f"').find((d) => d.includes("&#60;img") && d.includes("background:hsl(28,"));
    expect(evilBox).toBeDefined(); // grew and flagged: orange
    const steady = page.split('<div class="f"').find((d) => d.includes(">f3<"))!;
    expect(steady).toContain("background:#d9d4c7"); // within noise: neutral
  });
  test("without captures it still renders the verdict and tables (no flame graph)", () => {
    const page = renderDiffHtml(result);
    expect(page).toContain("Verdict: changed");
    expect(page).not.toContain('class="f"');
    expect(page).toContain("<table>");
  });
  test("text table ranks the flagged change first", () => {
    const text = renderDiffTable(result);
    expect(text.split("\n")[0]).toStartWith("verdict: CHANGED");
    const firstRow = text.split("\n").find((l) => l.includes("cpu/"))!;
    expect(firstRow).toContain("<img");
  });
  test("the standalone page and the app show the same figures, colours and words", () => {
    const page = renderDiffHtml(result, { before, after });
    const app = diffBody({ result, flames: [flameAxis("cpu", "samples", before, after, result.changes)], absent: [], jsonHref: "x" }).toString();
    const flame = flameAxis("cpu", "samples", before, after, result.changes);
    const evil = result.changes.find((c) => c.function === EVIL && c.flagged && c.kind === "inclusive")!;
    // The adjusted p (not the raw one), in the app's format, and the word "regression" in both.
    const p = evil.adjusted_p < 0.001 ? "&lt; 0.001" : evil.adjusted_p.toFixed(3);
    for (const view of [page, app]) {
      expect(view).toContain("changed ↑ regression");
      expect(view).toContain("grew: regression (flagged)");
      expect(view).toContain(signedPercent(evil.relative_change));
    }
    expect(app).toContain(`<td>${p}</td>`);
    expect(page).toContain(`<td>${p.replace("&lt;", "&#60;")}</td>`);
    expect(page).not.toContain(evil.p.toExponential(2));
    // The frame's fill and hover words: the standalone page draws with palette.ts, and the app's
    // script bundles that same file and calls it on the flame data's fields.
    const c = flame.changes[EVIL]!;
    expect(page).toContain(`background:${changeColour(c[0], c[3])}`);
    expect(APP_JS).toContain("// src/witness/palette.ts");
    expect(APP_JS.match(/hsl\(28,95%,/g)).toHaveLength(1); // one palette, not a copy
  });
});
