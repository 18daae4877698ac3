import { describe, expect, test } from "bun:test";
import { mergeAnswers, type NodeAnswer } from "../../src/server/dispatch/merge.ts";

const full = { requested: ["cpu" as const], attached: ["cpu" as const], not_attached: [] };
const m = (o: Record<string, NodeAnswer>) => mergeAnswers(new Map(Object.entries(o)));

describe("mergeAnswers", () => {
  test("not done while a node is pending or running", () => {
    expect(m({ a: { state: "pending" }, b: { state: "pushed", instrumentation: full } }).done).toBe(false);
    expect(m({ a: { state: "running", since: 1 } }).done).toBe(false);
    expect(m({}).done).toBe(false);
  });
  test("one pushed wins over refusals and nothing_to_push", () => {
    const r = m({ a: { state: "refused", reason: "x" }, b: { state: "pushed", instrumentation: full }, c: { state: "nothing_to_push", reason: "n" } });
    expect(r).toMatchObject({ done: true, outcome: "pushed", from: "b" });
  });
  test("a failure is reported with its reason", () => {
    const r = m({ a: { state: "failed", reason: "Profiler lost mid-capture" } });
    expect(r).toMatchObject({ done: true, outcome: "failed", reason: "Profiler lost mid-capture" });
  });
  test("refused everywhere is a failure naming the target list", () => {
    const r = m({ a: { state: "refused", reason: 'workload "w" is not in this Profiler\'s target list' } });
    expect(r).toMatchObject({ done: true, outcome: "failed" });
    expect((r as { reason: string }).reason).toContain("target list");
  });
  test("refusals beside nothing_to_push stay nothing_to_push", () => {
    const r = m({ a: { state: "refused", reason: "x" }, b: { state: "nothing_to_push", reason: "not running" } });
    expect(r).toMatchObject({ done: true, outcome: "nothing_to_push" });
    expect((r as { reason: string }).reason).toContain("1 other Profiler");
  });
});
