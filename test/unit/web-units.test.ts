// Absolute values beside shares on the web pages: what each axis' unit reads as.
import { describe, expect, test } from "bun:test";
import { absolute } from "../../src/server/web/units.ts";
import { APP_JS } from "../../src/server/web/assets/app-js.ts";

/** The flame graph's absolute() and num(), taken out of the browser script as they are served. */
function browserAbsolute(): (v: number, s: unknown) => string {
  const num = /\n  function num\(x\) \{[^\n]*\}\n/.exec(APP_JS)?.[0];
  const abs = /\n  function absolute\(v, s\) \{\n[\s\S]*?\n  \}\n/.exec(APP_JS)?.[0];
  if (!num || !abs) throw new Error("num() or absolute() not found in APP_JS");
  return new Function(`${num}${abs}return absolute;`)();
}

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
  test("the flame graph's tooltips (app-js.ts) say the same as the pages (units.ts), for every unit", () => {
    const inBrowser = browserAbsolute();
    const scales = [
      { unit: "bytes", seconds: 2, periodNs: null },
      { unit: "bytes", seconds: null, periodNs: null },
      { unit: "samples", seconds: 2, periodNs: 10_000_000 },
      { unit: "samples", seconds: 2, periodNs: null },
      { unit: "nanoseconds", seconds: 1, periodNs: null },
      { unit: "calls", seconds: 3, periodNs: null },
      { unit: "count", seconds: null, periodNs: null },
    ] as const;
    for (const s of scales) for (const v of [0.5, 300, 3 * 1048576, 5e9]) expect(inBrowser(v, s)).toBe(absolute(v, s));
  });
});
