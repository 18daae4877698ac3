// ptop's CPython offset table (native/ptop/src/interp/python/pyoffsets.c) is what tools/pyoffsets_gen.c prints
// when compiled against each interpreter's own headers: regenerated here against every CPython
// with headers on the machine (pyenv's 3.8-3.13 and Debian's), any difference fails.
import { expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { REPO_ROOT } from "../helpers/runner-bin.ts";
import { cleanup, sharedTempDir } from "./ptop-harness.ts";
import { PYENV, SUPPORTED_MINORS } from "./ptop-python-interpreters.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const PTOP_DIR = resolve(REPO_ROOT, "native/ptop");
const haveCc = Bun.which("cc") !== null;

/** version hex -> { field: value } from a C initializer list of rows `{ .version = 0x…, .f = n, … }`. */
function rows(text: string): Map<number, Record<string, number>> {
  const out = new Map<number, Record<string, number>>();
  for (const block of text.split(/\{\s*\/\*/).slice(1)) {
    const fields: Record<string, number> = {};
    for (const m of block.slice(0, block.indexOf("}")).matchAll(/\.(\w+)\s*=\s*(-?(?:0x[0-9a-f]+|\d+))/gi)) fields[m[1]!] = Number(m[2]);
    if (fields.version !== undefined) out.set(fields.version, fields);
  }
  return out;
}

function includeDirs(): { label: string; inc: string }[] {
  const found: { label: string; inc: string }[] = [];
  if (existsSync(PYENV))
    for (const v of readdirSync(PYENV).filter((v) => /^3\.\d+\.\d+$/.test(v) && Number(v.split(".")[1]) >= 8)) {
      const minor = v.split(".").slice(0, 2).join(".");
      found.push({ label: v, inc: join(PYENV, v, "include", `python${minor}`) });
    }
  for (const d of existsSync("/usr/include") ? readdirSync("/usr/include").filter((d) => /^python3\.\d+$/.test(d)) : [])
    if (existsSync(join("/usr/include", d, "internal"))) found.push({ label: `debian-${d}`, inc: join("/usr/include", d) });
  return found;
}

describeUnless(whyNot([!haveCc, "needs cc to compile the offsets generator against each CPython's headers"]))("ptop CPython offsets table", () => {
  test("every row equals the generator's output against that version's headers", () => {
    const table = rows(readFileSync(join(PTOP_DIR, "src/interp/python/pyoffsets.c"), "utf8"));
    const dir = sharedTempDir("ptop-pyoffsets-");
    try {
      const checked: string[] = [];
      for (const { label, inc } of includeDirs()) {
        const bin = join(dir, `gen-${label}`);
        const cc = Bun.spawnSync(["cc", "-DPy_BUILD_CORE", `-I${inc}`, `-I${join(inc, "internal")}`, join(PTOP_DIR, "tools/pyoffsets_gen.c"), "-o", bin], { stderr: "pipe" });
        expect({ label, cc: cc.exitCode, err: cc.exitCode ? cc.stderr.toString() : "" }).toEqual({ label, cc: 0, err: "" });
        const generated = [...rows(Bun.spawnSync([bin], { stdout: "pipe" }).stdout.toString()).values()][0]!;
        expect({ label, row: table.get(generated.version!) }).toEqual({ label, row: generated });
        checked.push(`${(generated.version! >> 24) & 0xff}.${(generated.version! >> 16) & 0xff}`);
      }
      // CI machines carry every supported minor version: none may go unchecked.
      expect([...new Set(checked)]).toEqual(expect.arrayContaining(SUPPORTED_MINORS));
      expect([...table.keys()].length).toBe(SUPPORTED_MINORS.length);
    } finally {
      cleanup(dir);
    }
  }, 60_000);
});
