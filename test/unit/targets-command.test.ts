// `runner targets check FILE` as a real process: exit status and the boot's messages.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { resolve } from "node:path";
import { runnerCommand } from "../helpers/runner-bin.ts";

// Each test starts real processes; a loaded machine (or a cold transpile from sources) is slow.
setDefaultTimeout(60_000);

const fixture = (name: string) => resolve(import.meta.dir, "../fixtures/targets", name);

function run(...args: string[]) {
  const p = Bun.spawnSync([...runnerCommand(), "targets", ...args], { stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

describe("runner targets check", () => {
  test("a valid list exits 0 and prints the count, not the workloads", () => {
    const r = run("check", fixture("accept/valid.json"));
    expect(r.code).toBe(0);
    expect(r.out).toContain("2 targets");
    expect(r.out + r.err).not.toContain("worker");
    expect(r.out + r.err).not.toContain("payments");
  });

  test("a refused list exits 1 with the path of the offending element", () => {
    const r = run("check", fixture("refuse/star-workload.json"));
    expect(r.code).toBe(1);
    expect(r.err).toContain("refused: target list");
    expect(r.err).toContain("$.targets[1].workload");
  });

  test("duplicates are warned about and still exit 0", () => {
    const r = run("check", fixture("accept/duplicate-targets.json"));
    expect(r.code).toBe(0);
    expect(r.out).toContain("warning:");
    expect(r.out).toContain("duplicate of $.targets[0]");
  });

  test("a missing file exits 1", () => {
    const r = run("check", fixture("nope.json"));
    expect(r.code).toBe(1);
    expect(r.err).toContain("file not found");
  });

  test("usage errors exit 2", () => {
    expect(run().code).toBe(2);
    expect(run("lint", fixture("accept/valid.json")).code).toBe(2);
    expect(run("check").code).toBe(2);
  });
});
