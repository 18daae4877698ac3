// Body validation of the capture request: every rule of the reference document, each refusal
// naming its field. (The same rules are exercised over HTTP in test/e2e/capture-api.test.ts.)
import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { CAPTURE_DEFAULTS, CaptureRequestBody, parseCaptureRequest } from "../../src/protocol/capture-request.ts";

const ok = (body: unknown) => {
  const r = parseCaptureRequest(JSON.stringify(body));
  if (!r.ok) throw new Error(r.error);
  return r.value;
};
const refused = (text: string) => {
  const r = parseCaptureRequest(text);
  if (r.ok) throw new Error(`accepted ${text}`);
  return r;
};

describe("capture request body", () => {
  test("defaults: kind head, duration 60, warmup 5, env empty", () => {
    expect(ok({ workload: "w", version: "v" })).toEqual({ workload: "w", version: "v", env: "", kind: "head", durationSec: 60, warmupSec: 5 });
  });
  test("the defaults are read from the schema, the one place that states them", () => {
    const props = CaptureRequestBody.properties;
    expect(CAPTURE_DEFAULTS).toEqual({ env: props.env.default, kind: props.kind.default, duration_sec: props.duration_sec.default, warmup_sec: props.warmup_sec.default });
    const saved = CAPTURE_DEFAULTS.duration_sec;
    CAPTURE_DEFAULTS.duration_sec = 77;
    try {
      expect(ok({ workload: "w", version: "v" }).durationSec).toBe(77);
    } finally {
      CAPTURE_DEFAULTS.duration_sec = saved;
    }
  });
  test("aliases and bounds", () => {
    expect(ok({ workload: "w", version: "v", durationSec: 5, warmupSec: 0 })).toMatchObject({ durationSec: 5, warmupSec: 0 });
    expect(ok({ workload: "w", version: "v", duration_sec: 300, warmup_sec: 60 })).toMatchObject({ durationSec: 300, warmupSec: 60 });
    expect(ok({ workload: "w", version: "v", duration_sec: 30, durationSec: 30 })).toMatchObject({ durationSec: 30 });
    expect(ok({ workload: "w", version: "v", kind: "replicate", env: "prod" })).toMatchObject({ kind: "replicate", env: "prod" });
  });
  test.each([
    ['{"version":"v"}', "workload"],
    ['{"workload":"w"}', "version"],
    ['{"workload":"","version":"v"}', "workload"],
    ['{"workload":"w","version":1}', "version"],
    ['{"workload":"w","version":"v","env":null}', "env"],
    ['{"workload":"w","version":"v","kind":"tail"}', "kind"],
    ['{"workload":"w","version":"v","duration_sec":4}', "duration_sec"],
    ['{"workload":"w","version":"v","duration_sec":301}', "duration_sec"],
    ['{"workload":"w","version":"v","duration_sec":"60"}', "duration_sec"],
    ['{"workload":"w","version":"v","durationSec":1000}', "durationSec"],
    ['{"workload":"w","version":"v","warmup_sec":-1}', "warmup_sec"],
    ['{"workload":"w","version":"v","warmupSec":61}', "warmupSec"],
    ['{"workload":"w","version":"v","duration_sec":30,"durationSec":31}', "duration_sec"],
    ['{"workload":"w","version":"v","warmup_sec":1,"warmupSec":2}', "warmup_sec"],
    ['{"workload":"w","version":"v","comment":"hi"}', "comment"],
    ['{"workload":"w","version":"v","__proto__":{}}', "__proto__"],
  ])("%s is refused naming %s", (text, field) => {
    const r = refused(text);
    expect(r.field).toBe(field);
    expect(r.error).toContain(field);
  });
  test.each(["", "   ", "{", "null", "[]", '"x"', "42"])("body %p is refused", (text) => {
    expect(refused(text).field).toBeNull();
  });
  test("what the parser accepts also satisfies the published TypeBox schema", () => {
    const v = ok({ workload: "w", version: "v", durationSec: 10 });
    expect(Value.Check(CaptureRequestBody, v)).toBe(true);
  });
});
