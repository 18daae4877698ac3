// Stored text printed by a CLI: every character that acts on a terminal is written out, and the
// JSON forms stay JSON carrying the same values.
import { describe, expect, test } from "bun:test";
import { safe, terminalJson, terminalSafe } from "../../src/terminal-text.ts";

const HOSTILE = "1.0\u001b[2K\u001b]0;pwned\u0007\r\u009b31m\u202eexe.txt\u0000\u2028";
// (a newline aside: pretty JSON's own lines)
const ACTS_ON_A_TERMINAL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe("terminal-safe text", () => {
  test("C0, DEL, C1, bidi overrides and line separators are written out; the rest is kept", () => {
    expect(terminalSafe(HOSTILE)).toBe("1.0\\x1b[2K\\x1b]0;pwned\\x07\\x0d\\x9b31m\\u202eexe.txt\\x00\\u2028");
    expect(terminalSafe("checkout@2.4.1 (prod) — café ✓")).toBe("checkout@2.4.1 (prod) — café ✓");
  });
  test("a template escapes what it interpolates, not its own tabs", () => {
    expect(safe`${"a\tb"}\t${HOSTILE}`).toBe(`a\\x09b\t${terminalSafe(HOSTILE)}`);
  });
  test("JSON, pretty or compact, carries the same values with nothing raw left", () => {
    for (const indent of [2, 0]) {
      const out = terminalJson({ version: HOSTILE, n: 1 }, indent);
      expect(out).not.toMatch(ACTS_ON_A_TERMINAL);
      expect(JSON.parse(out)).toEqual({ version: HOSTILE, n: 1 });
    }
    expect(terminalJson({ a: 1 }, 0)).toBe('{"a":1}');
  });
});
