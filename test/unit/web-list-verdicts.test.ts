// The Profiling list's verdict counts: functions, as a reader counts them, not tests.
import { expect, test } from "bun:test";
import { summarise, verdictCell } from "../../src/server/web/list-verdicts.ts";

const change = (fn: string, axis: string, kind: string, direction: "up" | "down", flagged = true) => ({ function: fn, axis, kind, direction, flagged });

test("a function flagged on its self and total cost, on two axes, counts once", () => {
  const json = JSON.stringify({
    verdict: "changed",
    changes: [
      change("apply_discounts", "cpu", "self", "up"),
      change("apply_discounts", "cpu", "inclusive", "up"),
      change("apply_discounts", "offcpu", "inclusive", "up"),
      change("render", "cpu", "self", "down"),
      change("render", "cpu", "inclusive", "down"),
      change("parse", "cpu", "self", "down", false),
    ],
  });
  const v = summarise(json);
  expect(v).toEqual({ verdict: "mixed", up: 1, down: 1 });
  const cell = String(verdictCell(v));
  expect(cell).toContain("(1↑ 1↓)");
  expect(cell).toContain('title="functions flagged: 1 up, 1 down"');
});

test("only rises: up, counted by function", () => {
  const json = JSON.stringify({ verdict: "changed", changes: [change("a", "cpu", "self", "up"), change("b", "cpu", "inclusive", "up"), change("a", "cpu", "inclusive", "up")] });
  expect(summarise(json)).toEqual({ verdict: "up", up: 2, down: 0 });
});
