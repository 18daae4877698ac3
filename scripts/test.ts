// `npm test`: builds, runs every bun test file under test/, and ends with the plain line CI reads:
// "N passed, N failed". Zero tests executed is a failure, as is any bun error outside a test.
import { $ } from "bun";
import { mkdirSync, readFileSync, existsSync } from "node:fs";

const args = process.argv.slice(2);
if (process.env.RUNNER_SKIP_BUILD !== "1") {
  const build = await $`${process.execPath} scripts/build.ts`.nothrow();
  if (build.exitCode !== 0) {
    console.log("0 passed, 1 failed");
    process.exit(1);
  }
}

mkdirSync(".test-results", { recursive: true });
const report = ".test-results/junit.xml";
const paths = args.length ? args : ["test/"];
const run = Bun.spawnSync([process.execPath, "test", "--reporter=junit", `--reporter-outfile=${report}`, ...paths], {
  stdio: ["inherit", "inherit", "inherit"],
  env: process.env,
});

let passed = 0;
let failed = 0;
if (existsSync(report)) {
  const xml = readFileSync(report, "utf8");
  const suites = xml.match(/<testsuites\b[^>]*>/)?.[0] ?? "";
  const num = (name: string) => Number(suites.match(new RegExp(`\\b${name}="(\\d+)"`))?.[1] ?? 0);
  const total = num("tests");
  const skipped = num("skipped");
  failed = num("failures") + num("errors");
  passed = total - failed - skipped;
}
// bun exiting non-zero with no failing test means an error outside tests (e.g. an import error).
if (run.exitCode !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
