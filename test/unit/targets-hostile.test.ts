// Hostile target-list files: generated on disk, read through the same path as the boot. None may
// crash the reader, pollute prototypes or hang; each gets a clear message.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_TARGETS_FILE_BYTES, readTargetsFile } from "../../src/profiler/targets.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "targets-hostile-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string | Uint8Array): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

function refused(path: string): string {
  const list = readTargetsFile(path);
  expect(list.targets).toEqual([]);
  expect(list.errors.length).toBeGreaterThan(0);
  for (const e of list.errors) {
    expect(typeof e.message).toBe("string");
    expect(e.message.length).toBeGreaterThan(5);
    expect(e.path.startsWith("$")).toBe(true);
  }
  return list.errors.map((e) => e.message).join("\n");
}

describe("hostile target lists", () => {
  test("deep nesting stops at the depth bound, no stack overflow", () => {
    const depth = 100_000;
    expect(refused(write("deep-array.json", `{"targets":${"[".repeat(depth)}${"]".repeat(depth)}}`))).toContain("nesting deeper than");
    expect(refused(write("deep-object.json", `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`))).toContain("nesting deeper than");
  });

  test("a file over the size cap is refused before it is parsed", () => {
    const big = `{"targets":[${Array.from({ length: 80_000 }, () => '{"workload":"api"}').join(",")}]}`;
    expect(big.length).toBeGreaterThan(MAX_TARGETS_FILE_BYTES);
    expect(refused(write("huge.json", big))).toContain(`larger than ${MAX_TARGETS_FILE_BYTES} bytes`);
  });

  test("the most entries allowed, one per line, are read whole; an error after 20,000 keys names its line", () => {
    const entries = Array.from({ length: 10_000 }, (_, k) => `{"workload":"w${k}","namespace":"ns-${k}"}`);
    expect(readTargetsFile(write("many.json", `{"targets":[\n${entries.join(",\n")}\n]}`)).targets).toHaveLength(10_000);
    // A repeated key on the last entry's line (line 10,001): positions count on across keys.
    const bad = `{"targets":[\n${entries.slice(0, -1).join(",\n")},\n{"workload":"x","workload":"y"}\n]}`;
    expect(refused(write("many-bad.json", bad))).toContain('key "workload" appears twice');
    expect(readTargetsFile(join(dir, "many-bad.json")).errors[0]!.at).toBe("line 10001, column 17");
  });

  test("raw NUL bytes", () => {
    expect(refused(write("nul-raw.json", '{"targets":[{"workload":"a\u0000pi"}]}'))).toContain("U+0000");
    expect(refused(write("nul-outside.json", '\u0000{"targets":[{"workload":"api"}]}'))).toContain("U+0000");
  });

  test("an escaped NUL in a workload", () => {
    expect(refused(write("nul-escaped.json", '{"targets":[{"workload":"a\\u0000pi"}]}'))).toContain("control character");
  });

  test("non-UTF-8 bytes give the offset", () => {
    const bytes = new Uint8Array([...Buffer.from('{"targets":[{"workload":"'), 0xff, 0xfe, ...Buffer.from('"}]}')]);
    expect(refused(write("latin.json", bytes))).toContain("not valid UTF-8 (first bad byte at offset 25)");
    const overlong = new Uint8Array([...Buffer.from('{"targets":[{"workload":"'), 0xc0, 0xaf, ...Buffer.from('"}]}')]);
    expect(refused(write("overlong.json", overlong))).toContain("not valid UTF-8");
    const truncated = new Uint8Array([...Buffer.from('{"targets":[{"workload":"api"}]}'), 0xe2, 0x82]);
    expect(refused(write("truncated.json", truncated))).toContain("not valid UTF-8");
  });

  test("a UTF-8 BOM", () => {
    expect(refused(write("bom.json", `\ufeff{"targets":[{"workload":"api"}]}`))).toContain("byte-order mark");
  });

  test("UTF-16 encoded file", () => {
    const utf16 = Buffer.from(`\ufeff{"targets":[{"workload":"api"}]}`, "utf16le");
    expect(refused(write("utf16.json", utf16))).toMatch(/UTF-8|invalid JSON/);
  });

  test("a lone surrogate escape", () => {
    expect(refused(write("surrogate.json", '{"targets":[{"workload":"\\ud800"}]}'))).toContain("surrogate");
  });

  test("prototype-pollution keys are plain unknown keys", () => {
    for (const key of ["__proto__", "constructor", "prototype"]) {
      const msg = refused(write(`${key}.json`, `{"${key}":{"polluted":true},"targets":[{"workload":"api","${key}":{"isAdmin":true}}]}`));
      expect(msg).toContain(`unknown key "${key}"`);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  test("a workload that is a padded asterisk or whitespace", () => {
    expect(refused(write("star-padded.json", '{"targets":[{"workload":" * "}]}'))).toContain('"*"');
    expect(refused(write("blank.json", '{"targets":[{"workload":"   "}]}'))).toContain("whitespace");
  });

  test("very long strings and keys are shortened in messages", () => {
    const long = "x".repeat(100_000);
    const msg = refused(write("long.json", `{"targets":[{"workload":"${long}","${long}":1}]}`));
    expect(msg.length).toBeLessThan(2_000);
  });

  test("comments, single quotes, NaN and trailing garbage", () => {
    expect(refused(write("comment.json", '// api\n{"targets":[{"workload":"api"}]}'))).toContain("comments are not JSON");
    expect(refused(write("single-quote.json", "{'targets':[]}"))).toContain("invalid JSON");
    expect(refused(write("nan.json", '{"targets":[{"workload":NaN}]}'))).toContain("invalid JSON");
    expect(refused(write("garbage.json", '{"targets":[{"workload":"api"}]} x'))).toContain("after the end of the document");
  });

  test("a directory, a FIFO and a dangling symlink", () => {
    mkdirSync(join(dir, "a-dir.json"));
    expect(refused(join(dir, "a-dir.json"))).toContain("directory");
    const fifo = join(dir, "fifo.json");
    Bun.spawnSync(["mkfifo", fifo]);
    expect(refused(fifo)).toContain("not a regular file");
    symlinkSync(join(dir, "nowhere.json"), join(dir, "dangling.json"));
    expect(refused(join(dir, "dangling.json"))).toContain("file not found");
  });

  test("seeded random mutations of a valid list never throw", () => {
    let seed = 0x5eed;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const base = Buffer.from('{"targets":[{"workload":"api","namespace":"payments"},{"workload":"db"}]}');
    for (let n = 0; n < 500; n++) {
      const bytes = Buffer.from(base);
      const edits = 1 + Math.floor(rand() * 4);
      for (let k = 0; k < edits; k++) bytes[Math.floor(rand() * bytes.length)] = Math.floor(rand() * 256);
      const path = write("fuzz.json", bytes);
      const list = readTargetsFile(path);
      // Either a clean list or errors with messages; never both, never neither.
      if (list.errors.length === 0) expect(list.targets.length).toBeGreaterThan(0);
      else expect(list.targets).toEqual([]);
    }
  });
});
