// `npm test`: builds, runs every bun test file under test/, and ends with the plain line CI reads:
// "N passed, N failed, N skipped", after one line per skipped test with its reason (the name a
// test/helpers/skip.ts helper gave it). Zero tests executed is a failure, as is any bun error
// outside a test.
import { $ } from "bun";
import { mkdirSync, readFileSync, existsSync } from "node:fs";
import { SKIP_MARK } from "../test/helpers/skip.ts";

const args = process.argv.slice(2);
if (process.env.RUNNER_SKIP_BUILD !== "1") {
  const build = await $`${process.execPath} scripts/build.ts`.nothrow();
  if (build.exitCode !== 0) {
    console.log("0 passed, 1 failed, 0 skipped");
    process.exit(1);
  }
}

mkdirSync(".test-results", { recursive: true });
const report = ".test-results/junit.xml";
const paths = args.length ? args : ["test/"];
const run = Bun.spawnSync([process.execPath, "test", "--timeout=120000", "--reporter=junit", `--reporter-outfile=${report}`, ...paths], {
  stdio: ["inherit", "inherit", "inherit"],
  env: process.env,
});

let passed = 0;
let failed = 0;
let skipped = 0;
const skips: string[] = [];
if (existsSync(report)) {
  const xml = readFileSync(report, "utf8");
  const suites = xml.match(/<testsuites\b[^>]*>/)?.[0] ?? "";
  const num = (name: string) => Number(suites.match(new RegExp(`\\b${name}="(\\d+)"`))?.[1] ?? 0);
  const total = num("tests");
  skipped = num("skipped");
  failed = num("failures") + num("errors");
  passed = total - failed - skipped;
  for (const m of xml.matchAll(/<testcase name="([^"]*)" classname="([^"]*)"[^>]*\bfile="([^"]*)"[^>]*>\s*<skipped\s*\/>/g)) {
    const unescape = (t: string) => t.replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&apos;/g, "'").replace(/&amp;/g, "&");
    const [name, block, file] = [unescape(m[1]!), unescape(m[2]!), m[3]!.replace(`${process.cwd()}/`, "")];
    const path = block ? `${block} > ${name}` : name;
    skips.push(`skipped: ${file}: ${path}${path.includes(SKIP_MARK) ? "" : " — skipped: no reason given"}`);
  }
}
for (const line of skips) console.log(line);
// bun exiting non-zero with no failing test means an error outside tests (e.g. an import error).
if (run.exitCode !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
