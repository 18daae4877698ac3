// docs/rules.md maps every rule of the reference to its code and its test. This keeps the map
// true: every cited file exists, every cited symbol is in its file, every cited test name is a
// test of its file, every row cites code and a test, and every section of the reference (when the
// reference sits beside the repository, as in the team's checkout) has its section in the map.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { testUnless } from "../helpers/skip.ts";

const ROOT = resolve(import.meta.dir, "../..");
const MAP = readFileSync(resolve(ROOT, "docs/rules.md"), "utf8");
const REFERENCE = resolve(ROOT, "../shared/REFERENCE.md");
const rows = MAP.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| Rule |") && !l.startsWith("|---"));
const cites = (cell: string) => [...cell.matchAll(/`([^`#]+)#([^`]+)`/g)].map((m) => ({ file: m[1]!, name: m[2]! }));

describe("docs/rules.md", () => {
  test("has rows, each with code and a test (except the reference's empty Events)", () => {
    expect(rows.length).toBeGreaterThan(80);
    for (const row of rows) {
      const [, , impl, proof] = row.split(" | ").length >= 3 ? ["", ...row.slice(2, -2).split(" | ")] : [];
      if (row.includes("| None given |")) continue;
      expect({ row, impl: cites(impl ?? "").length > 0 }).toEqual({ row, impl: true });
      expect({ row, proof: cites(proof ?? "").length > 0 }).toEqual({ row, proof: true });
    }
  });
  test("every cited file exists and holds the cited symbol or test name", () => {
    const missing: string[] = [];
    for (const { file, name } of rows.flatMap(cites)) {
      const path = resolve(ROOT, file);
      if (!existsSync(path)) {
        missing.push(`${file}: no such file`);
        continue;
      }
      const text = readFileSync(path, "utf8");
      const isTest = file.startsWith("test/");
      const found = isTest ? [`("${name}"`, `('${name}'`, `(\`${name}\``].some((q) => text.includes(q)) : text.includes(name);
      if (!found) missing.push(`${file}: ${isTest ? "no test named" : "no"} ${JSON.stringify(name)}`);
    }
    expect(missing).toEqual([]);
  });
  testUnless(existsSync(REFERENCE) ? null : `the reference document ${REFERENCE} is not on this machine`)("every section of the reference has its section in the map", () => {
    const headings = (text: string) => text.split("\n").filter((l) => /^#{2,3} /.test(l)).map((l) => l.replace(/^#+ /, "").trim());
    const mine = new Set(headings(MAP));
    expect(headings(readFileSync(REFERENCE, "utf8")).filter((h) => !mine.has(h))).toEqual([]);
  });
});
