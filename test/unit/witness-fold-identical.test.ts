// Folded input is read in place as bytes, frame names interned and stacks packed as name ids
// (src/witness/folded.ts). The output must stay what the string reader it replaced made, byte for
// byte: that reader is kept here as the reference (decode the text, merge whole stack strings in a
// Map, sort whole lines), and a generated input full of the awkward cases goes through both, in
// process (in chunks of every size) and through the `runner` executable (fold, diff --json).
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { diffCaptures } from "../../src/witness/diff.ts";
import { FoldedCounts, parseFolded } from "../../src/witness/folded.ts";
import { AxisBuilder, type Capture } from "../../src/witness/model.ts";
import { parseProfile } from "../../src/witness/parse.ts";
import { LineSplitter } from "../../src/witness/read-lines.ts";
import { rng } from "../fixtures/profiles/synthetic.ts";
import { runnerCommand } from "../helpers/runner-bin.ts";

setDefaultTimeout(120_000);
const dir = mkdtempSync(join(tmpdir(), "witness-fold-identical-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The reader before this change: whole text, a Map of stack strings, whole lines sorted. */
function reference(bytes: Uint8Array, name?: string): { folded: string; capture: Capture } {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  const counts = new Map<string, number>();
  for (const raw of text.split("\n")) {
    const line = raw.trimEnd();
    if (line === "" || line.startsWith("#")) continue;
    const sp = line.lastIndexOf(" ");
    const stack = line.slice(0, sp);
    counts.set(stack, (counts.get(stack) ?? 0) + Number(line.slice(sp + 1)));
  }
  const lines = [...counts].filter(([, c]) => c > 0).map(([s, c]) => `${s} ${c}`);
  lines.sort();
  const b = new AxisBuilder("cpu", "samples");
  for (const [stack, count] of counts) b.add(stack.split(";").map((n) => b.frame({ name: n })), count);
  const capture: Capture = { meta: { source: "folded", partial: false }, axes: { cpu: b.profile }, missing: [] };
  if (name !== undefined) capture.meta.name = name;
  return { folded: lines.length ? lines.join("\n") + "\n" : "", capture };
}

// Names that sort awkwardly as lines: prefixes of each other ("f1", "f12", "f1 2"), spaces,
// tabs, no-break spaces, non-ASCII, astral characters, and a byte-order mark.
const NAMES = ["main", "a", "a b", "ab", "a!", "a ", "f1", "f12", "f1 2", "é", "ü::x", "😀", "日本", "[unknown] 0x7f00", "tab\tname", "x\u00a0y", "\ufeffbom", "Z", "z"];
const COUNTS = ["1", "7", "0", "2.5", "1e3", "0x10", "007", "12345678901234567", "1e20", "0.1", "3", "9007199254740993"];
const enc = new TextEncoder();

/** Bytes of a folded file with every awkward case above, plus invalid UTF-8 (0xff and 0xfe both
 * decode to U+FFFD, so their stacks must merge), CRLF, trailing white space, comments, a BOM. */
function generate(seed: number, lines: number): Uint8Array {
  const r = rng(seed);
  const pick = <T,>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const parts: Uint8Array[] = [new Uint8Array([0xef, 0xbb, 0xbf])];
  for (let i = 0; i < lines; i++) {
    const roll = r();
    if (roll < 0.03) parts.push(enc.encode("# a comment\n"));
    else if (roll < 0.05) parts.push(enc.encode(" \t\n"));
    else {
      const depth = 1 + Math.floor(r() * 5);
      const frames = Array.from({ length: depth }, () => pick(NAMES));
      const stack = enc.encode(frames.join(";"));
      const bad = roll < 0.1 ? [pick([0xff, 0xfe, 0xc3])] : [];
      parts.push(stack, new Uint8Array(bad), enc.encode(` ${pick(COUNTS)}${pick(["", "", "\r", " \t", "\u00a0"])}\n`));
    }
  }
  parts.push(enc.encode("main;last 4")); // no final newline
  return Buffer.concat(parts);
}

/** FoldedCounts fed `bytes` in chunks of 1..maxChunk bytes. */
function inChunks(bytes: Uint8Array, seed: number, maxChunk: number): FoldedCounts {
  const r = rng(seed);
  const f = new FoldedCounts("cpu");
  const lines = new LineSplitter((buf, start, end) => f.lineBytes(buf, start, end));
  for (let at = 0; at < bytes.length; ) {
    const n = 1 + Math.floor(r() * maxChunk);
    lines.push(bytes.slice(at, at + n)); // a copy: the splitter may not keep a chunk
    at += n;
  }
  lines.end();
  return f;
}

const text = (chunks: Iterable<Uint8Array>) => Buffer.concat([...chunks]).toString("utf8");

describe("folded input gives the same output as the string reader it replaced", () => {
  const inputs = [1, 2, 3].map((seed) => generate(seed, 3000));

  test("the generated input has each awkward case", () => {
    const s = new TextDecoder().decode(inputs[0]);
    for (const name of NAMES) expect(s).toContain(name);
    expect(inputs[0]!.includes(0xff) && inputs[0]!.includes(0xfe)).toBe(true);
  });

  test("fold output, in chunks of every size", () => {
    for (const [i, bytes] of inputs.entries()) {
      const want = reference(bytes).folded;
      expect(want.split("\n").length).toBeGreaterThan(500);
      for (const maxChunk of [1, 7, 64, 4096, bytes.length]) expect(text(inChunks(bytes, i * 10 + maxChunk, maxChunk).sortedOutput(997))).toBe(want);
    }
  });

  test("the Capture (frame order, stack order, values) of bytes, of text, and through parseProfile", () => {
    for (const bytes of inputs) {
      const want = reference(bytes, "x.folded").capture;
      expect(parseProfile(bytes, "x.folded")).toEqual(want);
      expect(inChunks(bytes, 5, 300).capture("x.folded")).toEqual(want);
      expect(parseFolded(new TextDecoder().decode(bytes), "cpu", "x.folded")).toEqual(want);
    }
  });

  test("runner witness fold and witness diff --json write the same bytes", async () => {
    const files = inputs.map((bytes, i) => {
      const f = join(dir, `in${i}.folded`);
      writeFileSync(f, bytes);
      return f;
    });
    const run = async (args: string[]) => {
      const p = Bun.spawn([...runnerCommand(), "witness", ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      const [out, err, code] = await Promise.all([new Response(p.stdout).arrayBuffer(), new Response(p.stderr).text(), p.exited]);
      expect(err).toBe("");
      expect(code).toBe(0);
      return Buffer.from(out);
    };
    expect((await run(["fold", files[0]!])).toString("utf8")).toBe(reference(inputs[0]!).folded);
    const captures = inputs.map((bytes, i) => reference(bytes, `in${i}.folded`).capture);
    const want = JSON.stringify(diffCaptures({ before: [captures[0]!], after: [captures[1]!, captures[2]!] }), null, 2) + "\n";
    expect((await run(["diff", "--before", files[0]!, "--after", `${files[1]},${files[2]}`, "--json"])).toString("utf8")).toBe(want);
  });
});
