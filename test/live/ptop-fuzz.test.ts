// Every parser ptop runs on bytes it did not write (ELF symbol reader, perf-map parser, the /proc
// text (comm, cmdline, status, maps) and pod namespace file it reads while privileged, the target
// list, the CPython recogniser and code-object reader, the V8 recogniser and function namer, the demangler, the unwinder child's inputs
// and the parent's check of its output) under libFuzzer with
// AddressSanitizer and UBSan, for a fixed number of runs from seed inputs: bounded, and run in CI.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { REPO_ROOT } from "../helpers/runner-bin.ts";
import { addMiniDebugInfo, cleanup, sharedTempDir } from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";
import { v8NameSeed } from "./ptop-v8-seeds.ts";

const haveClang = Bun.which("clang") !== null;
const required = process.env.RUNNER_REQUIRE_LIVE === "1";
const PTOP_DIR = resolve(REPO_ROOT, "native/ptop");

describeUnless(whyNot([!haveClang && !required, "needs clang with libFuzzer (Debian clang, libclang-rt-14-dev)"]))("ptop parser fuzzing (libFuzzer + ASan + UBSan)", () => {
  let dir = "";
  beforeAll(() => {
    const make = Bun.spawnSync(["make", "-s", "-C", PTOP_DIR, "fuzz"], { stderr: "pipe" });
    if (make.exitCode !== 0) throw new Error(`make fuzz failed: ${make.stderr.toString()}`);
    dir = sharedTempDir("ptop-fuzz-");
  }, 300_000); // building nine ASan harnesses takes minutes on a loaded machine
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

  test("ELF symbol reader: 20000 runs from real ELF seeds (one with MiniDebugInfo)", () => {
    const corpus = join(dir, "elf");
    mkdirSync(corpus);
    copyFileSync(join(PTOP_DIR, "build", "ptop.bpf.o"), join(corpus, "bpf.o"));
    copyFileSync("/bin/true", join(corpus, "true"));
    // A small stripped executable shaped like a Go binary built -ldflags=-s (a .gopclntab section,
    // no .symtab), and the same with its section headers zeroed (the pclntab found by its header).
    const tab = goPclntab(0xfffffff1, 8, false, ["main.main", "runtime.mallocgc", "main.allocGoSite"]);
    const src = join(dir, "gotab.c");
    writeFileSync(src, `__attribute__((section(".gopclntab"), used)) const unsigned char pclntab[] = {${[...tab].join(",")}};\nvoid _start(void) { for (;;) ; }\n`);
    const cc = Bun.spawnSync(["clang", "-nostdlib", "-static", "-s", "-O1", src, "-o", join(corpus, "go-stripped")], { stderr: "pipe" });
    expect(cc.exitCode).toBe(0);
    const noSections = readFileSync(join(corpus, "go-stripped"));
    noSections.writeBigUInt64LE(0n, 0x28); // e_shoff
    noSections.writeUInt32LE(0, 0x3c); // e_shnum, e_shstrndx
    writeFileSync(join(corpus, "go-nosect"), noSections);
    // A small stripped program whose only symbols are in .gnu_debugdata (xz inside the ELF).
    const miniSrc = join(dir, "mini.c");
    writeFileSync(miniSrc, "static int __attribute__((noinline)) f(int x) { return x * 3; }\nint main(int c, char **v) { (void)v; return f(c); }\n");
    const mini = join(corpus, "minidebuginfo");
    expect(Bun.spawnSync(["clang", "-O1", miniSrc, "-o", mini]).exitCode).toBe(0);
    addMiniDebugInfo(mini);
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

  test("/proc text parsers (comm, cmdline, status NSpid and Uid, maps, pod namespace file): 200000 runs", () => {
    const corpus = join(dir, "proctext");
    mkdirSync(corpus);
    const seeds = join(PTOP_DIR, "fuzz/corpus/proctext");
    for (const name of readdirSync(seeds)) copyFileSync(join(seeds, name), join(corpus, name));
    copyFileSync("/proc/self/status", join(corpus, "status-live"));
    writeFileSync(join(corpus, "maps-live"), readFileSync("/proc/self/maps").subarray(0, 4096));
    fuzz("fuzz_proctext", corpus, 200000, 4096);
  }, 120_000);

  test("CPython recogniser (pyelf): 20000 runs from a small interpreter-shaped ELF", () => {
    const corpus = join(dir, "pyelf");
    mkdirSync(corpus);
    // A shared object with the symbols and data ptop looks for: Py_Version, _PyRuntime (with a
    // _Py_DebugOffsets cookie), PyCode_Type, a version string in .rodata.
    const src = join(dir, "fakepy.c");
    writeFileSync(src, [
      'const unsigned long Py_Version = 0x030d00f0;',
      'struct { char cookie[8]; unsigned long long v[64]; } _PyRuntime = { "xdebugpy", { 0x030d00f0 } };',
      'const char *version_string(void) { return "3.13.0"; }',
      'int PyCode_Type[4], PyUnicode_Type[4];',
      'void Py_Initialize(void) {}',
    ].join("\n"));
    const cc = Bun.spawnSync(["clang", "-shared", "-fPIC", "-O1", src, "-o", join(corpus, "libpython3.13.so.1.0")], { stderr: "pipe" });
    expect(cc.exitCode).toBe(0);
    copyFileSync("/bin/true", join(corpus, "true"));
    fuzz("fuzz_pyelf", corpus, 20000);
  }, 120_000);

  test("code-object reader (pycode): 200000 runs from a 3.12-shaped code object", () => {
    const corpus = join(dir, "pycode");
    mkdirSync(corpus);
    // Header: version row 4 (3.12) with type checks, code object at BASE+0x100, first line 17.
    const mem = Buffer.alloc(0x400);
    mem.writeBigUInt64LE(0xaaaan, 0); // PyCode_Type as the run-time address
    mem.writeBigUInt64LE(0xbbbbn, 8); // PyUnicode_Type
    const BASE = 0x10000n;
    mem.writeBigUInt64LE(0xaaaan, 0x100 + 8); // code->ob_type
    mem.writeInt32LE(17, 0x100 + 68); // co_firstlineno (3.12 row)
    mem.writeBigUInt64LE(BASE + 0x300n, 0x100 + 112); // co_filename
    mem.writeBigUInt64LE(BASE + 0x200n, 0x100 + 128); // co_qualname
    for (const [at, text] of [[0x200, "Svc.apply_discounts"], [0x300, "/srv/svc.py"]] as const) {
      mem.writeBigUInt64LE(0xbbbbn, at + 8); // str ob_type
      mem.writeBigUInt64LE(BigInt(text.length), at + 16); // length
      mem.writeUInt32LE((1 << 2) | (1 << 5) | (1 << 6), at + 32); // kind 1, compact, ascii
      mem.write(text, at + 40, "latin1"); // data after PyASCIIObject (40 bytes in 3.12)
    }
    const header = Buffer.from([4, 0x00, 0x01, 17, 0, 0, 0]);
    writeFileSync(join(corpus, "code312"), Buffer.concat([header, mem]));
    fuzz("fuzz_pycode", corpus, 200000);
  }, 120_000);

  test("V8 recogniser (v8elf): 20000 runs from a small object with Node 20's v8dbg_ metadata", () => {
    const corpus = join(dir, "v8elf");
    mkdirSync(corpus);
    const so = join(corpus, "libnode-layout.so");
    const cc = Bun.spawnSync(["clang", "-shared", "-fPIC", "-O1", join(PTOP_DIR, "fuzz/v8_seed_layout.c"), "-o", so], { stderr: "pipe" });
    expect(cc.exitCode).toBe(0);
    copyFileSync("/bin/true", join(corpus, "true"));
    fuzz("fuzz_v8elf", corpus, 20000);
  }, 120_000);

  test("V8 function namer (v8name): 200000 runs from a Node 20-shaped heap (ScopeInfo name, Script, inlined code)", () => {
    const corpus = join(dir, "v8name");
    mkdirSync(corpus);
    writeFileSync(join(corpus, "node20"), v8NameSeed());
    fuzz("fuzz_v8name", corpus, 200000);
  }, 120_000);

  test("demangler: 200000 runs from C++ and Rust symbols", () => {
    const corpus = join(dir, "demangle");
    mkdirSync(corpus);
    const seeds = join(PTOP_DIR, "fuzz/corpus/demangle");
    for (const name of readdirSync(seeds)) copyFileSync(join(seeds, name), join(corpus, name));
    fuzz("fuzz_demangle", corpus, 200000, 2048);
  }, 120_000);

  test("unwinder child (parent messages, ring-buffer snapshots over real CFI, its records through the parent's check): 20000 runs", () => {
    const corpus = join(dir, "unwind");
    mkdirSync(corpus);
    copyFileSync(join(PTOP_DIR, "fuzz/corpus/unwind/seed"), join(corpus, "seed"));
    fuzz("fuzz_unwind", corpus, 20000, 20000);
  }, 120_000);
  test("Go pclntab reader: 200000 runs from 1.16-, 1.18- and 1.20-shaped tables (64- and 32-bit, both byte orders)", () => {
    const corpus = join(dir, "gopclntab");
    mkdirSync(corpus);
    for (const [magic, ptr, be] of [[0xfffffffa, 8, false], [0xfffffff0, 8, false], [0xfffffff1, 8, false], [0xfffffff1, 4, true]] as const) {
      const t = goPclntab(magic, ptr, be, ["main.main", "runtime.mallocgc", "main.allocGoSite"]);
      writeFileSync(join(corpus, `tab-${magic.toString(16)}-${ptr}${be ? "be" : "le"}`), t);
      // The same table inside other bytes, as in a stripped binary's segment.
      writeFileSync(join(corpus, `seg-${magic.toString(16)}-${ptr}${be ? "be" : "le"}`), Buffer.concat([Buffer.alloc(64, 0xff), t]));
    }
    fuzz("fuzz_gopclntab", corpus, 200000, 4096);
  }, 120_000);
});

/** A Go function table in the runtime's layout (pcHeader, functab, _func records, function names). */
function goPclntab(magic: number, ptr: 4 | 8, be: boolean, names: string[]): Buffer {
  const go116 = magic === 0xfffffffa;
  const field = go116 ? ptr : 4;
  const n = names.length;
  const hdrLen = 8 + (go116 ? 7 : 8) * ptr;
  const nameTab = Buffer.from(names.map((x) => `${x}\0`).join(""), "latin1");
  const funcnameOff = hdrLen;
  const pclnOff = funcnameOff + nameTab.length + ((8 - ((funcnameOff + nameTab.length) % 8)) % 8);
  const ftabLen = (2 * n + 1) * field;
  const funcRec = (go116 ? ptr : 4) + 4 + 12; // entry, nameoff, then bytes the reader does not use
  const out = Buffer.alloc(pclnOff + ftabLen + n * funcRec);
  const put = (at: number, v: number, size: number) => {
    if (size === 8) be ? out.writeBigUInt64BE(BigInt(v), at) : out.writeBigUInt64LE(BigInt(v), at);
    else be ? out.writeUInt32BE(v >>> 0, at) : out.writeUInt32LE(v >>> 0, at);
  };
  put(0, magic, 4);
  out[6] = 1; // minLC
  out[7] = ptr;
  const text = 0x401000;
  put(8, n, ptr);
  const fields = go116 ? [funcnameOff, 0, 0, 0, pclnOff] : [text, funcnameOff, 0, 0, 0, pclnOff];
  fields.forEach((v, i) => put(8 + (2 + i) * ptr, v, ptr));
  nameTab.copy(out, funcnameOff);
  let nameAt = 0;
  for (let i = 0; i <= n; i++) {
    const entryOff = i * 0x40;
    put(pclnOff + 2 * i * field, go116 ? text + entryOff : entryOff, field);
    if (i === n) break;
    const funcOff = ftabLen + i * funcRec;
    put(pclnOff + (2 * i + 1) * field, funcOff, field);
    put(pclnOff + funcOff, go116 ? text + entryOff : entryOff, go116 ? ptr : 4);
    put(pclnOff + funcOff + (go116 ? ptr : 4), nameAt, 4);
    nameAt += names[i]!.length + 1;
  }
  return out;
}
