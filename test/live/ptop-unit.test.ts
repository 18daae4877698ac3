// Unit harnesses in C for what a live capture cannot provoke on demand (native/ptop/unit): the
// unwinder child when malloc/realloc/calloc fail, under ASan + UBSan. Each harness checks its own
// conditions and prints "ok" when they hold.
import { beforeAll, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { REPO_ROOT } from "../helpers/runner-bin.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const haveClang = Bun.which("clang") !== null;
const required = process.env.RUNNER_REQUIRE_LIVE === "1";
const PTOP_DIR = resolve(REPO_ROOT, "native/ptop");

describeUnless(whyNot([!haveClang && !required, "needs clang with ASan (Debian clang, libclang-rt-14-dev)"]))("ptop unit harnesses (ASan + UBSan)", () => {
  beforeAll(() => {
    const make = Bun.spawnSync(["make", "-s", "-C", PTOP_DIR, "unit"], { stderr: "pipe" });
    if (make.exitCode !== 0) throw new Error(`make unit failed: ${make.stderr.toString()}`);
  }, 300_000);

  function run(harness: string) {
    const r = Bun.spawnSync([join(PTOP_DIR, "build", harness)], { stdout: "pipe", stderr: "pipe" });
    const log = r.stderr.toString();
    expect({ exit: r.exitCode, sanitizer: /ERROR: (Address|Undefined)Sanitizer|runtime error/.test(log), log: r.exitCode ? log.slice(0, 2000) : "" })
      .toEqual({ exit: 0, sanitizer: false, log: "" });
    return r.stdout.toString();
  }

  test("unwinder child: every table it grows survives a failed allocation; each sample is aggregated or counted as dropped", () => {
    expect(run("unit_unwind_oom")).toMatch(/^ok: \d+ allocations in a run, [1-9]\d* runs with failures/);
  }, 120_000);
});
