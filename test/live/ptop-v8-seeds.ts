// Seeds for the V8 fuzz harnesses (native/ptop/fuzz/fuzz_v8name.c): a target's memory as Node.js 20
// or 22 lays it out (the offsets of native/ptop/fuzz/v8_seed_layout.c, v8_seed_layout22.c: in 22,
// Code's deoptimization data and position tables are trusted-space arrays), holding a SharedFunctionInfo named
// through its ScopeInfo, its Script (file name and source), and an optimised Code object whose source
// position table puts a second function inlined at the sampled pc.

const BASE = 0x10000n;
const smi = (v: number) => BigInt.asUintN(64, BigInt(v) << 32n);

/* Node 20's and 22's instance types and offsets, as their v8dbg_ metadata gives them (22's Code
 * fields as v8elf.c derives them). deoptArray: the deoptimization data's type; bytesArray: the
 * position tables'. */
const LAYOUTS = {
  node20: {
    TYPE: { sfi: 262, script: 167, string: 8, scopeInfo: 261, code: 245, deoptArray: 175, bytesArray: 190, weakArray: 240 },
    OFF: { mapType: 12, sfiName: 16, sfiScript: 32, scriptSource: 8, scriptName: 16, strLength: 12, strChars: 16, arrLength: 8, arrData: 16, codeDeopt: 16, codePositions: 24, codeIstart: 40 },
  },
  node22: {
    TYPE: { sfi: 274, script: 167, string: 8, scopeInfo: 272, code: 206, deoptArray: 213, bytesArray: 212, weakArray: 247 },
    OFF: { mapType: 12, sfiName: 16, sfiScript: 32, scriptSource: 8, scriptName: 16, strLength: 12, strChars: 16, arrLength: 8, arrData: 16, codeDeopt: 8, codePositions: 16, codeIstart: 40 },
  },
};
type Types = (typeof LAYOUTS)["node20"]["TYPE"];

/* V8's source position table: zigzag VLQ pairs (code offset delta, position delta). */
function vlq(v: bigint): number[] {
  let u = v >= 0n ? v << 1n : ((-v) << 1n) - 1n;
  const out: number[] = [];
  do {
    const b = Number(u & 0x7fn);
    u >>= 7n;
    out.push(u ? b | 0x80 : b);
  } while (u);
  return out;
}

export function v8NameSeed(version: keyof typeof LAYOUTS = "node20"): Buffer {
  const { TYPE, OFF } = LAYOUTS[version];
  const mem = Buffer.alloc(0x900);
  const tagged = (at: number) => BASE + BigInt(at) + 1n;
  const q = (at: number, v: bigint) => mem.writeBigUInt64LE(v, at);
  const maps: Record<keyof Types, number> = {} as never;
  Object.entries(TYPE).forEach(([name, type], i) => {
    const at = 0x100 + 0x20 * i;
    mem.writeUInt16LE(type, at + OFF.mapType);
    maps[name as keyof Types] = at;
  });
  const object = (at: number, map: keyof Types) => q(at, tagged(maps[map]));
  const string = (at: number, text: string) => {
    object(at, "string");
    mem.writeInt32LE(text.length, at + OFF.strLength);
    mem.write(text, at + OFF.strChars, "latin1");
  };
  const array = (at: number, map: keyof Types, length: number) => {
    object(at, map);
    q(at + OFF.arrLength, smi(length));
    return at + OFF.arrData;
  };
  const source = "function priceCart(n) { return n; }\nfunction handler(r) { return priceCart(r); }\n";
  string(0x540, "handler");
  string(0x580, "priceCart");
  string(0x5c0, "/srv/shop.js");
  string(0x600, source);
  // handler: named by its ScopeInfo (no context locals: the name at slot 3, positions after it)
  object(0x400, "sfi");
  q(0x400 + OFF.sfiName, tagged(0x480));
  q(0x400 + OFF.sfiScript, tagged(0x500));
  object(0x480, "scopeInfo");
  const slots = [smi(0), smi(1), smi(0), tagged(0x540), smi(-1), tagged(0x540), smi(source.indexOf("(r)")), smi(source.length - 1)];
  slots.forEach((v, i) => q(0x488 + 8 * i, v));
  // priceCart: named by a string
  object(0x440, "sfi");
  q(0x440 + OFF.sfiName, tagged(0x580));
  q(0x440 + OFF.sfiScript, tagged(0x500));
  object(0x500, "script");
  q(0x500 + OFF.scriptSource, tagged(0x600));
  q(0x500 + OFF.scriptName, tagged(0x5c0));
  // handler's optimised code, priceCart inlined at offsets 4 onwards
  object(0x700, "code");
  q(0x700 + OFF.codeDeopt, tagged(0x740));
  q(0x700 + OFF.codePositions, tagged(0x840));
  q(0x700 + OFF.codeIstart, 0x7f0000001000n);
  const deopt = array(0x740, "deoptArray", 8);
  q(deopt + 8 * 2, tagged(0x7c0)); // DeoptimizationDataLiteralArrayIndex
  q(deopt + 8 * 7, tagged(0x800)); // DeoptimizationDataInliningPositionsIndex
  q(array(0x7c0, "weakArray", 1), tagged(0x440));
  const inlining = array(0x800, "bytesArray", 16);
  q(inlining, BigInt(source.indexOf("priceCart(r)")) << 1n); // the call's position in handler, not inlined itself
  mem.writeInt32LE(0, inlining + 8); // literal 0: priceCart
  const table = [...vlq(0n), ...vlq(20n << 1n), ...vlq(4n), ...vlq((1n << 31n) + (4n << 1n))];
  Buffer.from(table).copy(mem, array(0x840, "bytesArray", table.length));
  const header = Buffer.alloc(8);
  header.writeUInt16LE(0x400, 0);
  header.writeUInt16LE(0x700, 2);
  header.writeUInt32LE(6, 4);
  return Buffer.concat([header, mem]);
}
