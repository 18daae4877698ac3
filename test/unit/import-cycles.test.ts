// No module of the repository (src, test, bench, scripts, image) imports itself through others
// (scripts/import-cycles.ts), and the check does find a cycle: one closed only by a type-only
// import, one through a re-export, and none through a package or an embedded asset.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { importCycles } from "../../scripts/import-cycles.ts";

const ROOT = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "import-cycles-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(dir, "src-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

test("the repository has no import cycle", () => {
  expect(importCycles(ROOT)).toEqual([]);
});

test("a cycle closed by a type-only import or a re-export is found; packages, assets and a one-way chain are not cycles", () => {
  const root = tree({
    "diff/verdict.ts": `import { count } from "../table.ts";\nexport const verdict = () => count;\n`,
    "table.ts": `import type { Change } from "./diff.ts";\nimport { readFileSync } from "node:fs";\nexport const count = (c: Change[]) => c.length;\n`,
    "diff.ts": `#!/usr/bin/env bun\nimport { verdict } from "./diff/verdict.ts";\nexport interface Change { a: number }\nexport { verdict };\n`,
    "context.ts": `import { type Source } from "./secret.ts";\nexport type Context = { s: Source };\n`,
    "secret.ts": `export type { Context } from "./context.ts";\nexport interface Source { get(): string }\n`,
    "leaf.ts": `import shop from "./shop.c" with { type: "text" };\nimport "./table.ts";\n// import "./leaf.ts"\nexport const s = "import './leaf.ts'" + shop;\n`,
    "shop.c": "int main(void) { return 0; }\n",
  });
  expect(importCycles(root)).toEqual([
    ["context.ts", "secret.ts", "context.ts"],
    ["diff.ts", "diff/verdict.ts", "table.ts", "diff.ts"],
  ]);
});
