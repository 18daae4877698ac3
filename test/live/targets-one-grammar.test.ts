// One grammar for the target list: `runner targets check` (src/profiler/targets.ts) and ptop's own
// parser (native/ptop/src/collector/targets.c) must accept exactly the same files. A list that passes the
// check and is then refused by ptop at every capture (a path as workload, 254/255-byte names,
// 200×"é", 2,000 entries, a 300 KB file were) fails this test, and so does the reverse.
// Every file of test/fixtures/targets/accept and refuse, plus the cases on each limit, goes through
// the compiled dist/runner and dist/ptop.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { REPO_ROOT, liveAvailable, runnerCommand, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import { writeLimitCases } from "../fixtures/targets/limits.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const CORPUS = resolve(REPO_ROOT, "test/fixtures/targets");
const PTOP = process.env.PTOP_BIN ?? resolve(REPO_ROOT, "dist/ptop");
// ptop checks its capabilities before it reads the list: as root it has them all.
const whyNotRun = whyNot([!liveAvailable(), NOT_ROOT], [!existsSync(PTOP), `needs the built collector ${PTOP} (npm run build)`]);
const UNLISTED = "zz-corpus-unlisted-workload";

type Verdict = "accept" | "refuse";

async function runnerVerdict(file: string): Promise<{ verdict: Verdict | string; said: string }> {
  const p = Bun.spawn([...runnerCommand(), "targets", "check", file], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { verdict: code === 0 ? "accept" : code === 1 ? "refuse" : `exit ${code}`, said: (out + err).trim() };
}

/** A list ptop accepts gets as far as the workload check: an unlisted workload is then refused by name. */
async function ptopVerdict(file: string): Promise<{ verdict: Verdict | string; said: string }> {
  const p = Bun.spawn([PTOP, "--targets", file, "--workload", UNLISTED, "--duration", "1"], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const said = err.trim();
  if (code !== PTOP_EXIT.refused || out !== "") return { verdict: `exit ${code}, stdout ${out.length} bytes`, said };
  return { verdict: said.includes(`workload "${UNLISTED}" is not in the target list`) ? "accept" : "refuse", said };
}

/** Runs fn over items, `width` at a time (each item starts two processes). */
async function pooled<T, R>(items: T[], width: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

describeUnless(whyNotRun)("target list: one grammar for runner and ptop (compiled binaries)", () => {
  let dir = "";
  const cases: Array<{ file: string; expected: Verdict }> = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "targets-grammar-"));
    for (const verdict of ["accept", "refuse"] as const) {
      for (const name of readdirSync(join(CORPUS, verdict)).sort()) cases.push({ file: join(CORPUS, verdict, name), expected: verdict });
    }
    const limits = writeLimitCases(dir);
    for (const file of limits.accept) cases.push({ file, expected: "accept" });
    for (const file of limits.refuse) cases.push({ file, expected: "refuse" });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("the corpus holds the cases the two parsers disagreed on", () => {
    const names = cases.map((c) => `${c.expected}/${c.file.split("/").pop()}`);
    for (const n of [
      "refuse/workload-path.json", "accept/name-254-bytes.json", "accept/name-255-bytes.json",
      "refuse/name-200-e-acute.json", "accept/entries-2000.json", "accept/file-300kb.json", "accept/entries-1025.json",
      "refuse/namespace-upper-case.json", "refuse/name-trailing-space.json", "refuse/invalid-utf8-byte.json",
      "accept/entries-10000.json", "refuse/entries-10001.json", "accept/file-1mib.json", "refuse/file-1mib-plus-1.json",
    ]) expect(names).toContain(n);
  });

  test("every list is accepted by both or refused by both, as its folder says", async () => {
    const results = await pooled(cases, 4, async (c) => {
      const [runner, ptop] = await Promise.all([runnerVerdict(c.file), ptopVerdict(c.file)]);
      return { c, runner, ptop };
    });
    const wrong = results
      .filter((r) => r.runner.verdict !== r.c.expected || r.ptop.verdict !== r.c.expected)
      .map((r) => `${r.c.file.replace(`${CORPUS}/`, "")}: expected ${r.c.expected}; runner ${r.runner.verdict} (${r.runner.said.slice(0, 160)}); ptop ${r.ptop.verdict} (${r.ptop.said.slice(0, 160)})`);
    expect(wrong).toEqual([]);
  }, 300_000);
});
