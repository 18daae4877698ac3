// docs/rules.md maps every rule of the reference to its code and its test. This keeps the map
// true: every cited file exists, every cited name is declared in its file (test/helpers/rules-map.ts
// says what a declaration is for each kind of file), every cited test name is a test of its file,
// every row cites code and a test, and every section of the reference (when the reference sits
// beside the repository, as in the team's checkout) has its section in the map.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { testUnless } from "../helpers/skip.ts";
import { citationProblems, citations } from "../helpers/rules-map.ts";

const ROOT = resolve(import.meta.dir, "../..");
const MAP = readFileSync(resolve(ROOT, "docs/rules.md"), "utf8");
const REFERENCE = resolve(ROOT, "../shared/REFERENCE.md");
const rows = MAP.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| Rule |") && !l.startsWith("|---"));

describe("docs/rules.md", () => {
  test("has rows, each with code and a test (except the reference's empty Events)", () => {
    expect(rows.length).toBeGreaterThan(80);
    for (const row of rows) {
      const [, , impl, proof] = row.split(" | ").length >= 3 ? ["", ...row.slice(2, -2).split(" | ")] : [];
      if (row.includes("| None given |")) continue;
      expect({ row, impl: citations(impl ?? "").length > 0 }).toEqual({ row, impl: true });
      expect({ row, proof: citations(proof ?? "").length > 0 }).toEqual({ row, proof: true });
    }
  });
  test("every cited file exists and declares the cited name, or holds the cited test", () => {
    expect(citationProblems(ROOT, MAP)).toEqual([]);
  });
  testUnless(existsSync(REFERENCE) ? null : `the reference document ${REFERENCE} is not on this machine`)("every section of the reference has its section in the map", () => {
    const headings = (text: string) => text.split("\n").filter((l) => /^#{2,3} /.test(l)).map((l) => l.replace(/^#+ /, "").trim());
    const mine = new Set(headings(MAP));
    expect(headings(readFileSync(REFERENCE, "utf8")).filter((h) => !mine.has(h))).toEqual([]);
  });
});

describe("the citation checker", () => {
  const dir = mkdtempSync(join(tmpdir(), "rules-map-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const files: Record<string, string> = {
    "src/queue.ts": [
      `import { captureOrder } from "./order.ts";`,
      `// function inComment() {}`,
      `export async function queueAs(org: string): Promise<string> {`,
      `  const local = "not enabled";`,
      `  return captureOrder(org) + local;`,
      `}`,
      `export type Limit = { n: number };`,
      `export class Dispatcher {`,
      `  kick(): void {`,
      `    this.drain();`,
      `  }`,
      `  private drain = async () => {};`,
      `}`,
    ].join("\n"),
    "native/targets.c": `int targets_parse(const char *buf,\n                  size_t len)\n{\n\treturn targets_check(buf);\n}\nint targets_allows(const char *w);\n`,
    "image/build.sh": `IMAGES="amd64 arm64"\nbase_for() {\n  echo "$1"\n}\n`,
    "Dockerfile": `ARG BASE=debian\nFROM \${BASE}\nENV RUNNER_COLLECTOR_PATH=/opt/runner/ptop\nRUN setcap cap_bpf+ep /opt/runner/ptop\n`,
    "policy.json": `{ "Version": "2012-10-17", "Statement": [{ "Action": ["s3:GetObject"] }] }`,
    "compose.yaml": `services:\n  profiler:\n    mem_limit: 512m\n`,
    "test/queue.test.ts": `test("queues once", () => {});\n`,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const check = (...cites: string[]) => citationProblems(dir, `| rule | ${cites.map((c) => `\`${c}\``).join(", ")} | \`test/queue.test.ts#queues once\` |\n`);

  test("declarations of each kind of file resolve", () => {
    expect(
      check(
        "src/queue.ts#queueAs", "src/queue.ts#Limit", "src/queue.ts#Dispatcher", "src/queue.ts#kick", "src/queue.ts#drain",
        "native/targets.c#targets_parse", "image/build.sh#base_for", "image/build.sh#IMAGES", "Dockerfile#BASE", "Dockerfile#RUNNER_COLLECTOR_PATH",
        "policy.json#Version", "policy.json#s3:GetObject", "compose.yaml#512m",
      ),
    ).toEqual([]);
  });
  test("a name the file only imports, calls, mentions or keeps local, a prototype, a fragment of a value, and a missing test each fail", () => {
    const problems = check(
      "src/queue.ts#captureOrder", "src/queue.ts#inComment", "src/queue.ts#local", "src/queue.ts#not enabled",
      "native/targets.c#targets_check", "native/targets.c#targets_allows", "Dockerfile#setcap", "image/build.sh#arm64", "policy.json#2012", "src/gone.ts#x",
    );
    expect(problems).toEqual([
      `src/queue.ts: declares no "captureOrder"`,
      `src/queue.ts: declares no "inComment"`,
      `src/queue.ts: declares no "local"`,
      `src/queue.ts: declares no "not enabled"`,
      `native/targets.c: declares no "targets_check"`,
      `native/targets.c: declares no "targets_allows"`,
      `Dockerfile: declares no "setcap"`,
      `image/build.sh: declares no "arm64"`,
      `policy.json: declares no "2012"`,
      `src/gone.ts: no such file`,
    ]);
    expect(citationProblems(dir, "| rule | `src/queue.ts#queueAs` | `test/queue.test.ts#queues twice` |\n")).toEqual([`test/queue.test.ts: no test named "queues twice"`]);
  });
});
