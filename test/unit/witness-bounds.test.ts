// `runner witness` on hostile and oversized input, through the real executable: gzip bombs are
// refused at the decompression limit, folded files stream, deep stacks render, and sums past
// 1e308 are refused instead of written out as "Infinity".
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runnerCommand } from "../helpers/runner-bin.ts";
import { gzipBomb } from "../helpers/gzip-bomb.ts";
import { runWithPeakRss } from "../helpers/peak-rss.ts";
import { writeBigFolded } from "../fixtures/profiles/big-folded.ts";
import { MAX_PROFILE_BYTES, mib } from "../../src/protocol/profile-limits.ts";

const LIMIT = mib(MAX_PROFILE_BYTES);

setDefaultTimeout(180_000);
const dir = mkdtempSync(join(tmpdir(), "witness-bounds-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `runner witness …`; maxRssMb of that process alone (peak-rss.ts: a python3 parent reads it,
 * since a child spawned straight from this test process counts the test's pages until exec). */
async function run(args: string[]) {
  const r = await runWithPeakRss([...runnerCommand(), "witness", ...args]);
  return { code: r.code, out: r.out, err: r.err, maxRssMb: r.maxRssMiB };
}

describe("gzip bombs", () => {
  let bomb = "";
  beforeAll(async () => {
    bomb = join(dir, "bomb.pb.gz");
    writeFileSync(bomb, await gzipBomb(512)); // 512 MiB of zeros in about half a megabyte
  });

  test(`fold refuses a gzip bomb at the ${LIMIT} limit, naming it, without inflating it whole`, async () => {
    const r = await run(["fold", bomb]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toContain("bomb.pb.gz");
    expect(r.err).toContain(`decompresses to more than ${LIMIT}, the limit for one profile`);
    // Bounded: the 512 MiB output is never held (old code: over 1 GB).
    expect(r.maxRssMb).toBeLessThan(400);
  });

  test("diff refuses it the same way", async () => {
    const ok = join(dir, "ok.folded");
    writeFileSync(ok, "main;work 100\n");
    const r = await run(["diff", "--before", ok, "--after", bomb]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`decompresses to more than ${LIMIT}`);
  });
});

describe("folded input streams", () => {
  test("a 44 MB folded file of repeated stacks folds in memory that does not grow with the file", async () => {
    // 5,000 distinct stacks, 41 frames deep, repeated until the file is 44 MB: like the folded
    // output of many captures concatenated. Read whole, this took over 1 GB.
    const big = join(dir, "big.folded");
    const { total } = writeBigFolded(big, "repeated", 44e6);
    const r = await run(["fold", big]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const out = r.out.trimEnd().split("\n");
    expect(out.length).toBe(5000);
    expect(out.reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0)).toBe(total);
    // Measured (bench/witness-memory.ts): 367 MB when read whole, 104 MB streamed line by line as
    // strings, 90 MB read in place; the executable alone takes 47 MB.
    console.log(`witness fold of a 44 MB folded file of repeated stacks: max RSS ${r.maxRssMb.toFixed(0)} MB`);
    expect(r.maxRssMb).toBeLessThan(250);
  });

  test("a 44 MB folded file of ~930,000 distinct stacks folds keeping only names and packed ids", async () => {
    // Almost every line a new stack (2–11 frames of 100,000 names): memory must hold each one, and
    // what each costs shows. Stack strings in a Map (each a slice keeping its 512 KB chunk alive)
    // took 312 MB (bench/witness-memory.ts); names once plus 4 bytes a frame take 171 MB.
    const big = join(dir, "shallow.folded");
    const { lines } = writeBigFolded(big, "shallow", 44e6);
    const r = await run(["fold", big]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out.length).toBeGreaterThan(35e6);
    const n = r.out.split("\n").length - 1;
    expect(n).toBeGreaterThan(lines * 0.85);
    console.log(`witness fold of a 44 MB folded file of ${n} distinct stacks: max RSS ${r.maxRssMb.toFixed(0)} MB`);
    expect(r.maxRssMb).toBeLessThan(280);
  });
});

describe("deep stacks", () => {
  test("diff --html renders stacks 20,000 frames deep (no recursion)", async () => {
    const deep = (leafCount: number) => `${Array.from({ length: 20_000 }, (_, i) => `f${i}`).join(";")} ${leafCount}\nmain;other 100\n`;
    const before = join(dir, "deep-before.folded");
    const after = join(dir, "deep-after.folded");
    writeFileSync(before, deep(100));
    writeFileSync(after, deep(300));
    const html = join(dir, "deep.html");
    const r = await run(["diff", "--before", before, "--after", after, "--html", html, "--json"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const page = readFileSync(html, "utf8");
    expect(page).toContain(">f19999</div>");
  });
});

describe("sums past 1e308", () => {
  test("fold refuses values whose sum leaves the double range, naming the line", async () => {
    const f = join(dir, "huge.folded");
    writeFileSync(f, "main;a 1e308\nmain;b 5\nmain;a 1e308\n");
    const r = await run(["fold", f]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toContain("line 3");
    expect(r.err).toContain('the values of axis "cpu" sum beyond 1e+308');
  });

  test("diff refuses them too, and a sum just under the limit still folds", async () => {
    const huge = join(dir, "huge2.folded");
    writeFileSync(huge, "main;a 9e307\nmain;b 9e307\n");
    expect((await run(["diff", "--before", huge, "--after", huge])).err).toContain("sum beyond 1e+308");
    const fine = join(dir, "fine.folded");
    writeFileSync(fine, "main;a 4e307\nmain;b 4e307\n");
    const r = await run(["fold", fine]);
    expect(r.code).toBe(0);
    expect(r.out).toBe("main;a 4e+307\nmain;b 4e+307\n");
  });
});
