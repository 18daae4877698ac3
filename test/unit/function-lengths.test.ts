// No function in src/ or native/ptop/src is longer than 100 lines (scripts/function-lengths.ts),
// and the check does find one: a method, an arrow function and a C definition (one written through
// a BPF_PROG-style macro) of 101 lines, named with their file, line and length; neither a function
// of exactly 100 lines, nor a long C initializer, nor braces in comments, strings or macros.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { longFunctions } from "../../scripts/function-lengths.ts";

const ROOT = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "function-lengths-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `n` lines of statements (a body of n + 2 lines with its first and last). */
const statements = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i)).join("\n");

test("no function in src/ or native/ptop/src is longer than 100 lines", async () => {
  expect(await longFunctions(ROOT, ["src", "native/ptop/src"])).toEqual([]);
});

test("functions of 101 lines are named with their file, line and length; 100 lines, initializers and braces in text are not", async () => {
  const files: Record<string, string> = {
    "a.ts": [
      "export class Shop {",
      "  open(): number {", // line 2, 101 lines
      "    let n = 0;",
      statements(98, (i) => `    n += ${i}; // ) {`),
      "  }",
      "}",
      "export const fits = (x: number) => {", // 100 lines
      statements(97, (i) => `  x += "{".length + ${i};`),
      "  return x;",
      "};",
    ].join("\n"),
    "b.ts": [
      "const s = `${'}'}`;",
      "export const close = async () => {", // line 2, 101 lines
      statements(99, (i) => `  await Promise.resolve(${i});`),
      "};",
    ].join("\n"),
    "c/shop.c": [
      "#include <stdio.h>",
      "#define BODY(x) { if (x) { return; } }",
      "static const int table[] = {", // an initializer of 152 lines: not a function
      statements(150, (i) => `\t${i}, /* f(void) { */`),
      "};",
      "/* static int g(void) {",
      "} */",
      "int shop_open(int a,", // line 157, 101 lines
      "\t      int b)",
      "{",
      statements(96, (i) => `\ta += b * ${i}; printf("%s", "}) {");`),
      "\treturn a + '}';",
      "}",
      "static int fits(void)", // 100 lines
      "{",
      statements(97, (i) => `\tputs("${i}");`),
      "}",
      "SEC(\"tracepoint/x\")",
      "int BPF_PROG(on_tick, int cpu)", // line 359, 101 lines
      "{",
      statements(97, (i) => `\tcpu += ${i};`),
      "\treturn cpu;",
      "}",
    ].join("\n"),
  };
  const root = mkdtempSync(join(dir, "src-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), `${text}\n`);
  }
  expect(await longFunctions(root, ["."])).toEqual([
    { file: "a.ts", line: 2, name: "open", lines: 101 },
    { file: "b.ts", line: 2, name: "close", lines: 101 },
    { file: "c/shop.c", line: 157, name: "shop_open", lines: 101 },
    { file: "c/shop.c", line: 359, name: "on_tick", lines: 101 },
  ]);
});
