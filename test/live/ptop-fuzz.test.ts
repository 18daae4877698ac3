// Every parser ptop runs on bytes it did not write (ELF symbol reader, perf-map parser, the /proc
// text (comm, cmdline, status, maps) and pod namespace file it reads while privileged, the target
// list, the CPython recogniser and code-object reader, the HotSpot readers, the V8 recogniser and function namer, the demangler, the unwinder child's inputs
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

  test("HotSpot readers (frame walk, names, structure tables, libjvm recogniser): 200000 runs from a JDK 17-shaped image", () => {
    const corpus = join(dir, "hotspot");
    mkdirSync(corpus);
    const BASE = 0x10000n;
    const at = (off: number) => BASE + BigInt(off);
    // Walk seed (fuzz_hotspot.c's JDK 17 layout): one code heap over 0x1000-0x3000 (64-byte
    // segments); an nmethod at 0x1010 whose leaf pc has a PcDesc with one inlined scope; its
    // caller a stub ("StubRoutines (1)", a frame-pointer frame) returning to native code.
    const mem = Buffer.alloc(0x6000);
    mem.writeBigUInt64LE(at(0x40), 0); // CodeCache::_heaps
    mem.writeInt32LE(1, 0x40); // GrowableArray _len
    mem.writeBigUInt64LE(at(0x60), 0x48); // _data
    mem.writeBigUInt64LE(at(0x80), 0x60); // CodeHeap*
    mem.writeBigUInt64LE(at(0x1000), 0x80 + 8 + 0x10); // _memory._low
    mem.writeBigUInt64LE(at(0x3000), 0x80 + 8 + 0x18); // _memory._high
    mem.writeBigUInt64LE(at(0x800), 0x80 + 0x78 + 0x10); // _segmap._low
    mem.writeInt32LE(6, 0x80 + 0x100); // _log2_segment_size
    for (let seg = 0; seg < 0x80; seg++) mem[0x800 + seg] = seg < 0x40 ? Math.min(seg, 0xfe) : Math.min(seg - 0x40, 0xfe);
    for (const [block, size, name] of [[0x1000, 0x800, 0x600], [0x2000, 0x400, 0x620]] as const) {
      mem.writeBigUInt64LE(BigInt(size), block); // HeapBlock::Header _length
      mem[block + 8] = 1; // _used
      const blob = block + 0x10;
      mem.writeBigUInt64LE(at(name), blob + 0x60); // _name
      mem.writeInt32LE(size - 0x10, blob + 0xc); // _size
      mem.writeInt32LE(0x10, blob + 0x14); // _frame_complete_offset
      mem.writeInt32LE(blob === 0x1010 ? 4 : 0, blob + 0x1c); // _frame_size (words)
      mem.writeBigUInt64LE(at(blob + 0x1f0), blob + 0x20); // _code_begin
    }
    mem.write("nmethod\0", 0x600, "latin1");
    mem.write("StubRoutines (1)\0", 0x620, "latin1");
    const nm = 0x1010;
    mem.writeBigUInt64LE(at(0x4000), nm + 0x70); // _method
    mem.writeBigUInt64LE(at(0x1700), nm + 0x78); // _scopes_data_begin
    mem.writeInt32LE(0x16f0 - nm, nm + 0x104); // _metadata_offset
    mem.writeInt32LE(0x1720 - nm, nm + 0x10c); // _scopes_pcs_offset
    mem.writeInt32LE(0x1760 - nm, nm + 0x110); // _dependencies_offset
    mem.writeBigUInt64LE(at(0x4000), 0x16f0); // metadata[1]
    mem.writeBigUInt64LE(at(0x4080), 0x16f8); // metadata[2]
    for (const [i, pc, scope] of [[0, -1, 0], [1, 0x20, 4], [2, 0x40, 1], [3, 0x60, 0]] as const) {
      mem.writeInt32LE(pc, 0x1720 + i * 16);
      mem.writeInt32LE(scope, 0x1720 + i * 16 + 4);
    }
    Buffer.from([0, 1, 1, 1, 2, 6]).copy(mem, 0x1701); // scope 1: outermost; scope 4: inlined, sender 1
    // Metadata: two Methods of one class, their ConstMethods, the pool, the class, the symbols.
    for (const [m, cm, nameIdx] of [[0x4000, 0x4100, 1], [0x4080, 0x4140, 3]] as const) {
      mem.writeBigUInt64LE(at(cm), m + 8); // _constMethod
      mem.writeBigUInt64LE(at(0x4200), cm + 8); // _constants
      mem.writeUInt16LE(nameIdx, cm + 0x22); // _name_index
      mem.writeUInt16LE(2, cm + 0x24); // _signature_index
    }
    mem.writeBigUInt64LE(at(0x4400), 0x4200 + 0x18); // _pool_holder
    mem.writeInt32LE(4, 0x4200 + 0x3c); // _length
    const syms = [[0x4800, "applyDiscounts"], [0x4840, "(JI[Ljava/lang/String;)J"], [0x4880, "mix"], [0x48c0, "com/shop/Pricing"]] as const;
    syms.forEach(([a, text], i) => {
      if (i < 3) mem.writeBigUInt64LE(at(a), 0x4200 + 0x48 + (i + 1) * 8);
      mem.writeUInt16LE(text.length, a + 4);
      mem.write(text, a + 6, "latin1");
    });
    mem.writeBigUInt64LE(at(0x48c0), 0x4400 + 0x18); // Klass::_name
    mem.writeBigUInt64LE(at(0x4200), 0x4400 + 0xe8); // InstanceKlass::_constants
    mem.writeBigUInt64LE(at(0x4600), 0x4400 + 0x198); // _methods
    mem.writeInt32LE(2, 0x4600);
    mem.writeBigUInt64LE(at(0x4000), 0x4608);
    mem.writeBigUInt64LE(at(0x4080), 0x4610);
    // The stack: the nmethod's frame (4 words) returning into the stub, whose fp frame returns
    // to native code.
    const sp = 0x5000;
    mem.writeBigUInt64LE(at(0x5100), sp + 16); // saved fp
    mem.writeBigUInt64LE(at(0x2010 + 0x1f0 + 8), sp + 24); // return address into the stub
    mem.writeBigUInt64LE(at(0x5200), 0x5100); // the stub's caller fp
    mem.writeBigUInt64LE(0x7000_0000n, 0x5108); // native return address
    const pc = 0x1010 + 0x1f0 + 0x18;
    const walk = Buffer.from([0, pc & 0xff, pc >> 8, sp & 0xff, sp >> 8, 0x00, 0x51, 1]);
    writeFileSync(join(corpus, "walk17"), Buffer.concat([walk, mem]));
    walk[7] = 3; // the same walk twice, the second from the walker's cache
    writeFileSync(join(corpus, "walk17-cached"), Buffer.concat([walk, mem]));
    // The class redefined since: its methods keep the pool they were parsed with (0x4200), the
    // class has a new one (0x4a00) that belongs to it too (hs_method_ok's earlier-version case).
    mem.copy(mem, 0x4a00, 0x4200, 0x4200 + 0x48 + 4 * 8);
    mem.writeBigUInt64LE(at(0x4a00), 0x4400 + 0xe8); // InstanceKlass::_constants
    writeFileSync(join(corpus, "walk17-redefined"), Buffer.concat([walk, mem]));
    // Structure-table seed: the 19 gHotSpotVM* variables at the image's start, one entry each.
    const tables = Buffer.alloc(0x1000);
    const vars = [at(0x200), 0, 8, 24, 32, 40, 48, at(0x800), 0, 32, 40, at(0xa00), 0, 8, 16, at(0xb00), 0, 8, 16];
    vars.forEach((v, k) => tables.writeBigUInt64LE(BigInt(v), k * 8));
    tables.write("CodeBlob\0_name\0_size\0HeapBlock\0frame::interpreter_frame_sender_sp_offset\0", 0xc00, "latin1");
    tables.writeBigUInt64LE(at(0xc00), 0x200); // CodeBlob::_name at 0x60
    tables.writeBigUInt64LE(at(0xc09), 0x208);
    tables.writeBigUInt64LE(0x60n, 0x200 + 32);
    tables.writeBigUInt64LE(at(0xc00), 0x230); // CodeBlob::_size at 0xc
    tables.writeBigUInt64LE(at(0xc0f), 0x238);
    tables.writeBigUInt64LE(0xcn, 0x230 + 32);
    tables.writeBigUInt64LE(at(0xc15), 0x800); // sizeof(HeapBlock) 16
    tables.writeBigUInt64LE(16n, 0x800 + 32);
    tables.writeBigUInt64LE(at(0xc1f), 0xa00); // an int constant
    tables.writeInt32LE(-1, 0xa08);
    writeFileSync(join(corpus, "tables"), Buffer.concat([Buffer.from([2, 0, 0, 0, 0, 0, 0, 0]), tables]));
    // Recogniser seed: a shared object exporting the 19 symbols, as libjvm.so does.
    const names = ["gHotSpotVMStructs", "gHotSpotVMStructEntryTypeNameOffset", "gHotSpotVMStructEntryFieldNameOffset",
      "gHotSpotVMStructEntryIsStaticOffset", "gHotSpotVMStructEntryOffsetOffset", "gHotSpotVMStructEntryAddressOffset",
      "gHotSpotVMStructEntryArrayStride", "gHotSpotVMTypes", "gHotSpotVMTypeEntryTypeNameOffset", "gHotSpotVMTypeEntrySizeOffset",
      "gHotSpotVMTypeEntryArrayStride", "gHotSpotVMIntConstants", "gHotSpotVMIntConstantEntryNameOffset",
      "gHotSpotVMIntConstantEntryValueOffset", "gHotSpotVMIntConstantEntryArrayStride", "gHotSpotVMLongConstants",
      "gHotSpotVMLongConstantEntryNameOffset", "gHotSpotVMLongConstantEntryValueOffset", "gHotSpotVMLongConstantEntryArrayStride"];
    const src = join(dir, "fakejvm.c");
    writeFileSync(src, names.map((n) => `unsigned long ${n} = 1;\n`).join(""));
    const so = join(dir, "libjvm.so");
    expect(Bun.spawnSync(["clang", "-shared", "-fPIC", "-O1", "-s", src, "-o", so]).exitCode).toBe(0);
    writeFileSync(join(corpus, "libjvm"), Buffer.concat([Buffer.from([3, 0, 0, 0, 0, 0, 0, 0]), readFileSync(so)]));
    fuzz("fuzz_hotspot", corpus, 200000);
  }, 180_000);

  test("V8 recogniser (v8elf): 20000 runs from small objects with Node 20's and 22's v8dbg_ metadata", () => {
    const corpus = join(dir, "v8elf");
    mkdirSync(corpus);
    for (const [layout, so] of [["v8_seed_layout.c", "libnode20-layout.so"], ["v8_seed_layout22.c", "libnode22-layout.so"]]) {
      const cc = Bun.spawnSync(["clang", "-shared", "-fPIC", "-O1", join(PTOP_DIR, "fuzz", layout!), "-o", join(corpus, so!)], { stderr: "pipe" });
      expect(cc.exitCode).toBe(0);
    }
    copyFileSync("/bin/true", join(corpus, "true"));
    fuzz("fuzz_v8elf", corpus, 20000);
  }, 120_000);

  test("V8 function namer (v8name): 200000 runs from a Node 20-shaped heap (ScopeInfo name, Script, inlined code)", () => {
    const corpus = join(dir, "v8name");
    mkdirSync(corpus);
    writeFileSync(join(corpus, "node20"), v8NameSeed());
    fuzz("fuzz_v8name", corpus, 200000);
  }, 120_000);

  test("V8 function namer over Node 22's layout (v8name22): 100000 runs from a Node 22-shaped heap (trusted arrays)", () => {
    const corpus = join(dir, "v8name22");
    mkdirSync(corpus);
    writeFileSync(join(corpus, "node22"), v8NameSeed("node22"));
    fuzz("fuzz_v8name22", corpus, 100000);
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
