// ptop's probes, their axis units and its default set are the Profiler's and witness's, read from
// ptop's one descriptor table (native/ptop/src/collector/probe_table.c), as the default frequency is
// read from args.c: a probe added, renamed, given another unit or moved in or out of the default on
// one side fails here until the other agrees.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { DEFAULT_PROBES } from "../../src/config/probe-set.ts";
import { ALL_PROBES } from "../../src/protocol/profile-stream.ts";
import { AXIS_UNITS } from "../../src/witness/model.ts";

const TABLE = readFileSync(resolve(import.meta.dir, "../../native/ptop/src/collector/probe_table.c"), "utf8");

/** Each row of PROBES: its name and whether it is in the default set, in the table's order. */
function rows(): { name: string; unit: string; byDefault: boolean }[] {
  const body = TABLE.slice(TABLE.indexOf("const struct probe_desc PROBES[P__COUNT] = {"));
  return [...body.matchAll(/\[P_\w+\] = \{([^}]*(?:\{[^}]*\}[^}]*)*)\}/g)].map((m) => ({
    name: /\.name = "(\w+)"/.exec(m[1]!)![1]!,
    unit: /\.unit = "(\w+)"/.exec(m[1]!)![1]!,
    byDefault: /\.by_default = true/.test(m[1]!),
  }));
}

test("ptop's probes are the protocol's, in its order", () => {
  expect(rows().map((r) => r.name)).toEqual([...ALL_PROBES]);
});

test("ptop's default probe set is the Profiler's DEFAULT_PROBES", () => {
  expect(rows().filter((r) => r.byDefault).map((r) => r.name)).toEqual([...DEFAULT_PROBES]);
});

test("each axis's unit is the one witness assumes for it", () => {
  expect(Object.fromEntries(rows().map((r) => [r.name, r.unit]))).toEqual({ ...AXIS_UNITS });
});
