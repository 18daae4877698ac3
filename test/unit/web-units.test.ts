// Absolute values beside shares on the web pages: what each axis' unit reads as.
import { describe, expect, test } from "bun:test";
import { absolute } from "../../src/server/web/units.ts";
import { APP_JS } from "../../src/server/web/assets/app-js.ts";

describe("absolute values per axis unit", () => {
  test("alloc (bytes): MiB per capture and MiB per second", () => {
    expect(absolute(3 * 1048576, { unit: "bytes", seconds: 2, periodNs: null })).toBe("3.0 MiB · 1.5 MiB/s");
    expect(absolute(512 * 1048576, { unit: "bytes", seconds: null, periodNs: null })).toBe("512 MiB");
  });
  test("the other units are unchanged", () => {
    expect(absolute(200, { unit: "samples", seconds: 2, periodNs: 10_000_000 })).toBe("200 samples · 1.0 CPU-s/s");
    expect(absolute(5e6, { unit: "nanoseconds", seconds: 1, periodNs: null })).toBe("5.0 ms blocked · 0.0050 s blocked/s");
    expect(absolute(300, { unit: "calls", seconds: 3, periodNs: null })).toBe("300 calls · 100 calls/s");
  });
  test("the flame graph's tooltips use units.ts itself, bundled into app.js, not a copy of it", () => {
    expect(APP_JS).toContain("// src/server/web/units.ts");
    expect(APP_JS.match(/function absolute\(/g)).toHaveLength(1);
    // One classic script: nothing left for a module loader.
    expect(APP_JS).not.toMatch(/^\s*(import|export)\b/m);
  });
});
