// `runner witness` on hostile and oversized input, through the real executable: gzip bombs are
// refused at the decompression limit, folded files stream, deep stacks render, and sums past
// 1e308 are refused instead of written out as "Infinity".
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runnerCommand } from "../helpers/runner-bin.ts";
import { gzipBomb } from "../helpers/gzip-bomb.ts";

setDefaultTimeout(180_000);
const dir = mkdtempSync(join(tmpdir(), "witness-bounds-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The child's peak RSS as the kernel counts it, read by a small python3 parent: a child forked
// straight from this test process counts its pages until exec, so its ru_maxrss was the size of
// the whole bun test run (268 MB in a full CI run, 103 MB for this file alone).
const RSS_PARENT = `import resource, subprocess, sys
code = subprocess.run(sys.argv[2:]).returncode
open(sys.argv[1], "w").write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(code)`;

/** Runs `runner witness …`; maxRss in MB of that process alone. */
async function run(args: string[]) {
  const rssFile = join(dir, `rss-${Math.random().toString(36).slice(2)}`);
  const p = Bun.spawn(["python3", "-c", RSS_PARENT, rssFile, ...runnerCommand(), "witness", ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err, maxRssMb: Number(readFileSync(rssFile, "utf8")) / 1024 };
}

describe("gzip bombs", () => {
  let bomb = "";
  beforeAll(async () => {
    bomb = join(dir, "bomb.pb.gz");
    writeFileSync(bomb, await gzipBomb(512)); // 512 MiB of zeros in about half a megabyte
  });

  test("fold refuses a gzip bomb at the 64 MiB limit, naming it, without inflating it whole", async () => {
    const r = await run(["fold", bomb]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toContain("bomb.pb.gz");
    expect(r.err).toContain("decompresses to more than 64 MiB, the limit for one profile");
    // Bounded: the 512 MiB output is never held (old code: over 1 GB).
    expect(r.maxRssMb).toBeLessThan(400);
  });

  test("diff refuses it the same way", async () => {
    const ok = join(dir, "ok.folded");
    writeFileSync(ok, "main;work 100\n");
    const r = await run(["diff", "--before", ok, "--after", bomb]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("decompresses to more than 64 MiB");
  });
});

describe("folded input streams", () => {
  test("a 44 MB folded file of repeated stacks folds in memory that does not grow with the file", async () => {
    // 5,000 distinct stacks, 40 frames deep, repeated until the file is 44 MB: like the folded
    // output of many captures concatenated. Read whole, this took over 1 GB.
    const stacks = Array.from({ length: 5000 }, (_, i) => Array.from({ length: 40 }, (_, d) => `module_${d % 13}::function_${(i * 7 + d * 31) % 3000}`).join(";") + `;leaf_${i}`);
    const lines: string[] = [];
    let size = 0;
    for (let i = 0; size < 44e6; i++) {
      const l = `${stacks[i % stacks.length]} ${1 + (i % 9)}\n`;
      lines.push(l);
      size += l.length;
    }
    const big = join(dir, "big.folded");
    writeFileSync(big, lines.join(""));
    lines.length = 0;
    const r = await run(["fold", big]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const out = r.out.trimEnd().split("\n");
    expect(out.length).toBe(5000);
    const total = out.reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
    const expected = readFileSync(big, "utf8").trimEnd().split("\n").reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
    expect(total).toBe(expected);
    // Measured on a 2-CPU host at load 13: 367 MB when read whole (before), 99 MB streamed.
    console.log(`witness fold of a 44 MB folded file: max RSS ${r.maxRssMb.toFixed(0)} MB`);
    expect(r.maxRssMb).toBeLessThan(250);
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
