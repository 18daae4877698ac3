// `npm test`'s own summary (scripts/test.ts): each skipped test with its reason, then the closing
// line `N passed, N failed, N skipped` that .ci/run re-prints; a run with no test passed fails.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
