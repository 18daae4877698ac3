// `npm test`'s own summary (scripts/test.ts): each skipped test with its reason, then the closing
// line `N passed, N failed, N skipped` that .ci/run re-prints; a run with no test passed fails; a
// type error fails the run, counted and printed.
import { afterAll, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "test-summary-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runSuite(name: string, body: string) {
  const file = join(dir, name);
  writeFileSync(file, `import { expect, test, describe } from "bun:test";\nimport { describeUnless, testUnless } from ${JSON.stringify(join(ROOT, "test/helpers/skip.ts"))};\n${body}`);
  const r = Bun.spawnSync([process.execPath, "scripts/test.ts", file], { cwd: ROOT, env: { ...process.env, RUNNER_SKIP_BUILD: "1" }, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, lines: r.stdout.toString().trimEnd().split("\n") };
}

const ciLine = () => new RegExp(/grep -E '([^']+)' \/tmp\/ci-test\.log/.exec(readFileSync(join(ROOT, ".ci/run"), "utf8"))![1]!);

test("each skip is printed with its reason, and the closing line counts skips", () => {
  const r = runSuite("mixed.test.ts", `
describeUnless("needs a unicorn")("block", () => { test("inner", () => {}); });
testUnless("needs root")("single", () => {});
testUnless(null)("runs", () => expect(1).toBe(1));
test.skipIf(true)("silent", () => {});
`);
  expect(r.code).toBe(0);
  expect(r.lines.at(-1)).toBe("1 passed, 0 failed, 3 skipped");
  expect(r.lines).toContain(`skipped: ${join(dir, "mixed.test.ts")}: block — skipped: needs a unicorn > inner`);
  expect(r.lines).toContain(`skipped: ${join(dir, "mixed.test.ts")}: single — skipped: needs root`);
  expect(r.lines).toContain(`skipped: ${join(dir, "mixed.test.ts")}: silent — skipped: no reason given`);
  expect(r.lines.at(-1)).toMatch(ciLine());
}, 60_000);

test("a run where nothing passed fails, and its closing line still matches .ci/run", () => {
  const r = runSuite("none.test.ts", `testUnless("never here")("only", () => {});\n`);
  expect(r.code).toBe(1);
  expect(r.lines.at(-1)).toBe("0 passed, 0 failed, 1 skipped");
  expect(r.lines.at(-1)).toMatch(ciLine());
}, 60_000);

test("the whole suite's run type-checks: a type error fails it as one more failed test, with tsc's error printed; once fixed it counts as passed", () => {
  // A checkout of its own: this script and its helper, a tsconfig over one source file, one test;
  // run as `npm test` runs it, with no paths, so over all of that checkout's test/.
  const repo = mkdtempSync(join(dir, "repo-"));
  for (const path of ["scripts/test.ts", "test/helpers/skip.ts"]) {
    mkdirSync(join(repo, path, ".."), { recursive: true });
    copyFileSync(join(ROOT, path), join(repo, path));
  }
  symlinkSync(join(ROOT, "node_modules"), join(repo, "node_modules"));
  writeFileSync(join(repo, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [] }, include: ["src"] }));
  mkdirSync(join(repo, "src"));
  writeFileSync(join(repo, "test/ok.test.ts"), `import { expect, test } from "bun:test";\ntest("ok", () => expect(1).toBe(1));\n`);
  const run = () => {
    const r = Bun.spawnSync([process.execPath, "scripts/test.ts"], { cwd: repo, env: { ...process.env, RUNNER_SKIP_BUILD: "1" }, stdout: "pipe", stderr: "pipe" });
    return { code: r.exitCode, lines: r.stdout.toString().trimEnd().split("\n") };
  };

  writeFileSync(join(repo, "src/count.ts"), `export const count: number = "one";\n`);
  const broken = run();
  expect(broken.code).toBe(1);
  expect(broken.lines.at(-1)).toBe("1 passed, 1 failed, 0 skipped");
  expect(broken.lines.at(-1)).toMatch(ciLine());
  expect(broken.lines).toContain("failed: type check (tsc --noEmit): 1 type error");
  expect(broken.lines.some((l) => l.startsWith("src/count.ts(1,14): error TS2322:"))).toBe(true);

  writeFileSync(join(repo, "src/count.ts"), `export const count: number = 1;\n`);
  const fixed = run();
  expect({ code: fixed.code, last: fixed.lines.at(-1) }).toEqual({ code: 0, last: "2 passed, 0 failed, 0 skipped" });
}, 60_000);
