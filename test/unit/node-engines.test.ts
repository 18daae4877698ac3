// The Node versions package.json promises are ones every installed dependency supports, so
// `npm install` prints no EBADENGINE warning on any of them (it printed 12 on Node 20).
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, "utf8")) as { engines?: { node?: string } };
const lock = JSON.parse(readFileSync(`${ROOT}/package-lock.json`, "utf8")) as { packages: Record<string, { engines?: { node?: string } | string[] }> };

// The lowest release of each Node line the range admits, and the newest lines we name.
const PROBES = ["20.17.0", "20.20.2", "22.9.0", "24.0.0"];

test("package.json states the supported Node versions; .npmrc enforces them", () => {
  expect(pkg.engines?.node).toBeString();
  expect(readFileSync(`${ROOT}/.npmrc`, "utf8")).toContain("engine-strict=true");
});

test("every locked dependency accepts every Node version package.json accepts", () => {
  const range = pkg.engines!.node!;
  const supported = PROBES.filter((v) => Bun.semver.satisfies(v, range));
  expect(supported.length).toBeGreaterThan(0);
  const refusing: string[] = [];
  for (const [path, meta] of Object.entries(lock.packages)) {
    const node = Array.isArray(meta.engines) ? undefined : meta.engines?.node;
    if (!path || !node) continue;
    for (const v of supported) if (!Bun.semver.satisfies(v, node)) refusing.push(`${path.replace(/^node_modules\//, "")} needs node ${node}, not ${v}`);
  }
  expect(refusing).toEqual([]);
});
