// The version diff on Python functions: a small Python service captured five times per version
// by the compiled ptop (targets as uid 65534, no flag), v2 making apply_discounts 30% slower;
// `runner witness diff` on those streams flags apply_discounts, up, and no other step up.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { liveAvailable, runnerCommand } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import { NOBODY, cleanup, copyWorkload, runPtop, setcapPtop, sharedTempDir, sleep, writeTargets } from "./ptop-harness.ts";

const live = liveAvailable();

describe.skipIf(!live || !existsSync("/usr/bin/python3"))("ptop + witness: a Python function made 30% slower (live)", () => {
  let dir = "";
  let ptop = "";
  beforeAll(() => {
    dir = sharedTempDir("ptop-pydiff-");
    ptop = setcapPtop(dir);
  });
  afterAll(() => cleanup(dir));

  async function captures(version: string, n: number): Promise<string[]> {
    const src = copyWorkload(dir, "py_svc.py");
    // Debian's python3 under a name of its own, so that no other python3 on the host is captured
    const workload = "pysvc-diff";
    const exe = join(dir, workload);
    if (!existsSync(exe)) symlinkSync("/usr/bin/python3", exe);
    const targets = writeTargets(dir, { targets: [{ workload }] }, "targets-svc.json");
    const proc = Bun.spawn([...NOBODY, "env", "HOME=/tmp", exe, src, version], { stdout: "pipe", stderr: "pipe" });
    const files: string[] = [];
    try {
      await sleep(1500);
      for (let i = 0; i < n; i++) {
        const run = await runPtop(ptop, ["--targets", targets, "--workload", workload, "--duration", "5", "--frequency", "999", "--probes", "cpu"]);
        expect(run.exitCode).toBe(PTOP_EXIT.ok);
        const file = join(dir, `svc-v${version}-${i}.jsonl`);
        writeFileSync(file, run.stdout);
        files.push(file);
      }
    } finally {
      proc.kill("SIGKILL");
      await proc.exited;
    }
    return files;
  }

  // A Python function is never a stack's leaf (the interpreter's C code is): its cost is its
  // inclusive count.
  test("runner witness diff flags apply_discounts (cpu inclusive, up) and no other step up", async () => {
    const before = await captures("1", 5);
    const after = await captures("2", 5);
    const r = Bun.spawnSync([...runnerCommand(), "witness", "diff", "--before", before.join(","), "--after", after.join(","), "--json"], { stdout: "pipe", stderr: "pipe" });
    const out = JSON.parse(r.stdout.toString()) as { verdict: string; changes: { function: string; axis: string; kind: string; flagged: boolean; direction: string; relative_change: number }[] };
    const cpu = out.changes.filter((c) => c.axis === "cpu");
    const own = cpu.find((c) => c.function === "apply_discounts" && c.kind === "inclusive");
    if (process.env.PYDIFF_DUMP) writeFileSync(process.env.PYDIFF_DUMP, r.stdout);
    console.log(JSON.stringify(cpu.filter((c) => c.flagged).map((c) => [c.function, c.kind, c.direction, Math.round(c.relative_change * 1000) / 1000])));
    expect(out.verdict).toBe("changed");
    expect({ flagged: own?.flagged, direction: own?.direction }).toEqual({ flagged: true, direction: "up" });
    const othersUp = cpu.filter((c) => c.flagged && c.direction === "up" && ["parse_order", "compute_tax", "format_receipt"].includes(c.function));
    expect(othersUp).toEqual([]);
  }, 300_000);
});
