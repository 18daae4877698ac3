// `npm test`: builds, runs every bun test file under test/, and ends with the plain line CI reads:
// "N passed, N failed, N skipped", after one line per skipped test with its reason (the name a
// test/helpers/skip.ts helper gave it). Zero tests executed is a failure, as is any bun error
// outside a test. A run of the whole suite (no paths given: `npm test`, CI) also type-checks:
// `tsc --noEmit` over tsconfig.json runs beside the tests and counts as one more test, its errors
// printed and counted failed. A run of a few files leaves it out (`npx tsc --noEmit` is there).
import { $ } from "bun";
import { mkdirSync, readFileSync, existsSync } from "node:fs";
import { resolve } from "node:path";
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
// Started before the tests and read after them, so it adds no wall time; its output goes to a
// file because the tests' synchronous run would leave a pipe unread.
const typecheckLog = ".test-results/tsc.txt";
const typecheck = args.length
  ? null
  : Bun.spawn([resolve("node_modules/.bin/tsc"), "--noEmit", "--pretty", "false"], { stdout: Bun.file(typecheckLog), stderr: "inherit" });

const report = ".test-results/junit.xml";
const paths = args.length ? args : ["test/"];
const run = Bun.spawnSync([process.execPath, "test", "--timeout=120000", "--reporter=junit", `--reporter-outfile=${report}`, ...paths], {
  stdio: ["inherit", "inherit", "inherit"],
  env: process.env,
});

const unescapeXml = (t: string) => t.replace(/&#10;/g, "\n").replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&apos;/g, "'").replace(/&amp;/g, "&");

/** "failed: FILE: NAME" and the first lines of its message, for at most 40 failures. */
function failureDigests(junit: string): string[] {
  if (!existsSync(junit)) return [];
  const xml = readFileSync(junit, "utf8");
  const out: string[] = [];
  for (const m of xml.matchAll(/<testcase name="([^"]*)" classname="([^"]*)"[^>]*\bfile="([^"]*)"[^>]*>\s*<failure\b[^>]*\bmessage="([^"]*)"/g)) {
    if (out.length === 40) {
      out.push("failed: … more (see above)");
      break;
    }
    const [name, block, file, message] = [unescapeXml(m[1]!), unescapeXml(m[2]!), m[3]!, unescapeXml(m[4]!)];
    const lines = message.split("\n").filter((l) => l.trim()).slice(0, 14).map((l) => `    ${l.slice(0, 240)}`);
    out.push(`failed: ${file}: ${block ? `${block} > ` : ""}${name}\n${lines.join("\n")}`);
  }
  return out;
}

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
    const [name, block, file] = [unescapeXml(m[1]!), unescapeXml(m[2]!), m[3]!.replace(`${process.cwd()}/`, "")];
    const path = block ? `${block} > ${name}` : name;
    skips.push(`skipped: ${file}: ${path}${path.includes(SKIP_MARK) ? "" : " — skipped: no reason given"}`);
  }
}
for (const line of skips) console.log(line);
// Each failure's message again, short, just above the summary: a CI log is often read from its end.
for (const f of failureDigests(report)) console.log(f);
// bun exiting non-zero with no failing test means an error outside tests (e.g. an import error).
if (run.exitCode !== 0 && failed === 0) failed = 1;
const testsPassed = passed;
if (typecheck) {
  const code = await typecheck.exited;
  if (code === 0) passed++;
  else {
    failed++;
    const errors = readFileSync(typecheckLog, "utf8").trimEnd();
    const count = errors.split("\n").filter((l) => /: error TS\d+:/.test(l)).length;
    const summary = count ? `${count} type error${count === 1 ? "" : "s"}` : `tsc exited ${code}`;
    console.log(`${errors}\nfailed: type check (tsc --noEmit): ${summary}`);
  }
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed === 0 && testsPassed > 0 ? 0 : 1);
