// `runner witness …` end to end through the real executable (compiled binary when built).
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runnerCommand } from "../helpers/runner-bin.ts";
import { toPprof } from "../../src/witness/pprof.ts";
import { toStream } from "../../src/witness/stream.ts";
import { toFolded } from "../../src/witness/folded.ts";
import { makeProgram, rng, version } from "../fixtures/profiles/synthetic.ts";

const FIX = resolve(import.meta.dir, "../fixtures/profiles");
const STREAM = `${FIX}/api-v1-head.stream.jsonl`;
const dir = mkdtempSync(join(tmpdir(), "witness-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], stdin?: Uint8Array | string) {
  const p = Bun.spawnSync([...runnerCommand(), "witness", ...args], { stdin: stdin === undefined ? "ignore" : Buffer.from(stdin), stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

const EXPECTED_CPU = "main;[unknown] 0x7f00dead 50\nmain;handle_request;memcpy 200\nmain;handle_request;parse_json 600\nmain;handle_request;parse_json;memcpy 150\n";

describe("witness fold", () => {
  test("folds a ptop stream, root first", () => {
    const r = run(["fold", "--axis", "cpu", STREAM]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toBe(EXPECTED_CPU);
  });
  test("reads stdin with -", () => {
    const r = run(["fold", "--axis", "syscalls", "-"], readFileSync(STREAM));
    expect(r.code).toBe(0);
    expect(r.out).toBe("read 1200\n");
  });
  test("an axis named like a JavaScript prototype member is absent like any other", () => {
    for (const axis of ["__proto__", "constructor", "toString"]) {
      const r = run(["fold", "--axis", axis, STREAM]);
      expect({ axis, code: r.code, err: r.err }).toEqual({ axis, code: 1, err: `witness: axis "${axis}" is absent from this capture (axes present: cpu, syscalls)\n` });
    }
  });
  test("an absent axis is an error naming why it is absent", () => {
    const r = run(["fold", "--axis", "offcpu", STREAM]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toContain("tracefs not mounted");
  });
  test("a missing file and a hostile file are errors, not crashes", () => {
    const missing = run(["fold", join(dir, "nope.pb.gz")]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("cannot read");
    const bad = join(dir, "bad.pb.gz");
    writeFileSync(bad, new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff]));
    const r = run(["fold", bad]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("bad.pb.gz");
  });
});

describe("witness convert", () => {
  test("stream → pprof → folded gives the same stacks", () => {
    const pb = join(dir, "head.pb.gz");
    expect(run(["convert", STREAM, "--to", "pprof", "-o", pb]).code).toBe(0);
    expect(run(["fold", "--axis", "cpu", pb]).out).toBe(EXPECTED_CPU);
  });
  test("to speedscope and to folded", () => {
    const ss = join(dir, "head.speedscope.json");
    expect(run(["convert", STREAM, "--to", "speedscope", "-o", ss]).code).toBe(0);
    expect(JSON.parse(readFileSync(ss, "utf8")).profiles.length).toBe(2);
    const fo = join(dir, "head.folded");
    expect(run(["convert", STREAM, "--to", "folded", "--axis", "cpu", "-o", fo]).code).toBe(0);
    expect(readFileSync(fo, "utf8")).toBe(EXPECTED_CPU);
  });
  test("usage errors exit 2", () => {
    expect(run(["convert", STREAM, "--to", "folded", "-o", join(dir, "x")]).code).toBe(2); // two axes, no --axis
    expect(run(["convert", STREAM, "--to", "gif", "-o", join(dir, "x")]).code).toBe(2);
    expect(run(["bogus"]).code).toBe(2);
  });
});

describe("witness diff", () => {
  const p = makeProgram({ seed: 11, stacks: 150, leaves: 50, cv: 0.01, targetShare: 0.02 });
  const r = rng(5);
  const before = version(p, r, 3, { samples: 100_000 });
  const after = version(p, r, 3, { samples: 100_000, change: { target: 1.5 } });
  // Mixed formats on purpose: pprof before, stream and folded after.
  const bFiles = before.map((c, i) => {
    const f = join(dir, `v1-${i}.pb.gz`);
    writeFileSync(f, toPprof(c));
    return f;
  });
  const aFiles = after.map((c, i) => {
    const f = join(dir, i === 2 ? `v2-${i}.folded` : `v2-${i}.jsonl`);
    writeFileSync(f, i === 2 ? toFolded(c.axes.cpu!) : toStream(c));
    return f;
  });

  test("--json: verdict, ranked changes with intervals, normalisation, confirmation", () => {
    const res = run(["diff", "--before", bFiles.join(","), "--after", aFiles.join(","), "--json"]);
    expect(res.err).toBe("");
    expect(res.code).toBe(0);
    const j = JSON.parse(res.out);
    expect(j.verdict).toBe("changed");
    expect(j.axes_compared[0].normalisation).toBe("median-ratio");
    expect(Array.isArray(j.changes)).toBe(true);
    const top = j.changes[0];
    expect(top.function).toBe("target");
    expect(top.axis).toBe("cpu");
    expect(top.flagged).toBe(true);
    expect(top.confirmation).toBe("confirmed");
    expect(top.interval[0]).toBeLessThan(0.5);
    expect(top.interval[1]).toBeGreaterThan(0.5);
    for (const k of ["before", "after", "relative_change", "p", "adjusted_p", "verdict", "normalisations"]) expect(top).toHaveProperty(k);
    expect(top.normalisations.share).toBeDefined();
    expect(typeof j.changes[j.changes.length - 1].flagged).toBe("boolean");
    expect(j.changes.filter((c: { flagged: boolean }) => c.flagged).every((c: { function: string }) => c.function === "target" || p.stacks.some((s, i) => p.leaf[i] === "target" && s.includes(c.function)))).toBe(true);
  });

  test("text table and --html", () => {
    const html = join(dir, "diff.html");
    const res = run(["diff", "--before", bFiles.join(","), "--after", aFiles.join(","), "--html", html]);
    expect(res.code).toBe(0);
    expect(res.out).toContain("verdict: CHANGED");
    expect(res.out).toMatch(/target\s+cpu\/self\s+\+\d+\.\d%/);
    expect(existsSync(html)).toBe(true);
    const page = readFileSync(html, "utf8");
    expect(page.startsWith("<!doctype html>")).toBe(true);
    expect(page).toContain("target");
    expect(page).toContain('class="f"');
    expect(page).not.toContain("<script src");
  });

  test("axes missing from a head are not compared, with the reason", () => {
    const res = run(["diff", "--before", STREAM, "--after", bFiles[0]!, "--json"]);
    expect(res.code).toBe(0);
    const j = JSON.parse(res.out);
    const syscalls = j.axes_not_compared.find((a: { axis: string }) => a.axis === "syscalls");
    expect(syscalls.reason).toContain("absent from after head");
    const offcpu = j.axes_not_compared.find((a: { axis: string }) => a.axis === "offcpu");
    expect(offcpu.reason).toContain("tracefs not mounted");
    expect(j.changes.every((c: { axis: string }) => c.axis === "cpu")).toBe(true);
  });

  test("an axis with nothing to test (one stack, one sample) answers insufficient, not a crash", () => {
    const one = join(dir, "one.cpu.folded");
    writeFileSync(one, "a;b 1\n");
    const res = run(["diff", "--before", one, "--after", one, "--json"]);
    expect(res.err).toBe("");
    expect(res.code).toBe(0);
    const j = JSON.parse(res.out);
    expect(j.verdict).toBe("insufficient");
    expect(j.changes).toEqual([]);
    expect(j.axes_compared.map((a: { axis: string; tested: number }) => [a.axis, a.tested])).toEqual([["cpu", 0]]);
  });

  test("usage: both sides required", () => {
    const res = run(["diff", "--before", bFiles[0]!]);
    expect(res.code).toBe(2);
    expect(res.err).toContain("--before and --after");
  });
});
