// Every parser ptop runs on bytes it did not write (ELF symbol reader, perf-map parser, the /proc
// text and pod namespace file it reads while privileged, the target list) under libFuzzer with
// AddressSanitizer and UBSan, for a fixed number of runs from seed inputs: bounded, and run in CI.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
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

  function fuzz(harness: string, corpus: string, runs: number, maxLen = 65536) {
    const r = Bun.spawnSync(
      [join(PTOP_DIR, "build", harness), `-runs=${runs}`, `-max_len=${maxLen}`, "-seed=1", `-artifact_prefix=${dir}/`, corpus],
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

  test("target-list parser: 200000 runs from the shared accept/refuse corpus", () => {
    // The grammar corpus of test/fixtures/targets (the small files: inputs are capped at 8 KiB so
    // that the runs stay quick; the size limits themselves are tested on the compiled binary).
    const corpus = join(dir, "targets");
    mkdirSync(corpus);
    const fixtures = resolve(REPO_ROOT, "test/fixtures/targets");
    for (const verdict of ["accept", "refuse"]) {
      for (const name of readdirSync(join(fixtures, verdict))) {
        const file = join(fixtures, verdict, name);
        if (statSync(file).size <= 8192) copyFileSync(file, join(corpus, `${verdict}-${name}`));
      }
    }
    fuzz("fuzz_targets", corpus, 200000, 8192);
  }, 120_000);

  test("/proc text parsers (comm, cmdline, status NSpid, pod namespace file): 200000 runs", () => {
    const corpus = join(dir, "proctext");
    mkdirSync(corpus);
    const seeds = join(PTOP_DIR, "fuzz/corpus/proctext");
    for (const name of readdirSync(seeds)) copyFileSync(join(seeds, name), join(corpus, name));
    copyFileSync("/proc/self/status", join(corpus, "status-live"));
    fuzz("fuzz_proctext", corpus, 200000, 4096);
  }, 120_000);
});
