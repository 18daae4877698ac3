// The capture record as `runner admin captures … --json` and the CLI print it (records/capture-json.ts).
import { describe, expect, test } from "bun:test";
import { instrumentationSummary } from "../../src/server/records/capture-json.ts";

describe("instrumentation summary", () => {
  test("not run, fully instrumented, N of M probes with reasons", () => {
    expect(instrumentationSummary(null)).toBe("not run yet");
    expect(instrumentationSummary({ probes_requested: 3, probes_attached: 3, missing: [] })).toBe("fully instrumented");
    expect(instrumentationSummary({ probes_requested: 3, probes_attached: 2, missing: [{ probe: "offcpu", reason: "tracefs not mounted" }] }))
      .toBe("2 of 3 probes (offcpu: tracefs not mounted)");
  });
});
