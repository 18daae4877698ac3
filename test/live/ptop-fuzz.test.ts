// The parsers of target-controlled bytes (ELF symbol reader, perf-map parser) under libFuzzer
// with AddressSanitizer and UBSan, for a fixed number of runs from seed inputs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { REPO_ROOT } from "../helpers/runner-bin.ts";
import { cleanup, sharedTempDir } from "./ptop-harness.ts";

const haveClang = Bun.which("clang") !== null;
const required = process.env.RUNNER_REQUIRE_LIVE === "1";
const PTOP_DIR = resolve(REPO_ROOT, "native/ptop");

describe.skipIf(!haveClang && !required)("ptop parser fuzzing (libFuzzer + ASan + UBSan)", () => {
  let dir = "";
  beforeAll(() => {
    const make = Bun.spawnSync(["make", "-s", "-C", PTOP_DIR, "fuzz"], { stderr: "pipe" });
    if (make.exitCode !== 0) throw new Error(`make fuzz failed: ${make.stderr.toString()}`);
    dir = sharedTempDir("ptop-fuzz-");
  });
  afterAll(() => cleanup(dir));

  function fuzz(harness: string, corpus: string, runs: number) {
    const r = Bun.spawnSync(
      [join(PTOP_DIR, "build", harness), `-runs=${runs}`, "-max_len=65536", "-seed=1", `-artifact_prefix=${dir}/`, corpus],
      { stdout: "pipe", stderr: "pipe", cwd: dir },
    );
    const log = r.stderr.toString();
    expect({ exit: r.exitCode, sanitizer: /ERROR: (Address|Undefined)Sanitizer|runtime error/.test(log) }).toEqual({ exit: 0, sanitizer: false });
    expect(log).toContain(`Done ${runs} runs`);
  }

  test("ELF symbol reader: 20000 runs from real ELF seeds", () => {
    const corpus = join(dir, "elf");
    mkdirSync(corpus);
    copyFileSync(join(PTOP_DIR, "build", "ptop.bpf.o"), join(corpus, "bpf.o"));
    copyFileSync("/bin/true", join(corpus, "true"));
    fuzz("fuzz_elf", corpus, 20000);
  }, 60_000);

  test("perf-map parser: 50000 runs from a seed map", () => {
    const corpus = join(dir, "perfmap");
    mkdirSync(corpus);
    copyFileSync(join(PTOP_DIR, "fuzz/corpus/perfmap/basic.map"), join(corpus, "basic.map"));
    writeFileSync(join(corpus, "java.map"), "7f3c10000000 1a0 long HotJava.javaHotMultiply(long)\n7f3c100001a0 80 Interpreter\n");
    fuzz("fuzz_perfmap", corpus, 50000);
  }, 60_000);
});
