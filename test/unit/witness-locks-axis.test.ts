// The `locks` axis through witness: a real ptop stream (test/live/ptop-locks.test.ts's workload,
// captured with --probes cpu,locks) read, folded, converted to pprof and speedscope with its unit
// (nanoseconds), and a diff of lock-wait time per second that flags the waiter whose wait doubled, as the cause.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { StreamRecord } from "../../src/protocol/profile-stream.ts";
import { parseStream, toStream } from "../../src/witness/stream.ts";
import { axisFromName, parseFolded, toFolded } from "../../src/witness/folded.ts";
import { parsePprof, toPprof } from "../../src/witness/pprof.ts";
import { toSpeedscope } from "../../src/witness/speedscope.ts";
import { diffCaptures } from "../../src/witness/diff.ts";
import type { Capture } from "../../src/witness/model.ts";

const text = readFileSync(resolve(import.meta.dir, "../fixtures/profiles/lockwait-locks.stream.jsonl"), "utf8");
const WAITER = "__clone3;start_thread;wait_loop;contend_on_hot_lock;timed_lock;pthread_mutex_lock;__GI___lll_lock_wait";

describe("locks axis in witness", () => {
  const c = parseStream(text, "lockwait.jsonl");

  test("every record of ptop's stream is valid, the summary's per-lock table included", () => {
    const recs = text.trimEnd().split("\n").map((l) => JSON.parse(l));
    expect(recs.every((r) => Value.Check(StreamRecord, r))).toBe(true);
    const summary = recs.at(-1);
    expect(summary.locks[0]).toMatchObject({ address: expect.stringMatching(/^0x[0-9a-f]+$/), waits: expect.any(Number), stacks: 1 });
    // A malformed lock entry is refused like any other schema violation.
    expect(Value.Check(StreamRecord, { ...summary, locks: [{ pid: 1, address: 5 }] })).toBe(false);
  });

  test("read with its unit, and folded root first in nanoseconds", () => {
    expect(c.axes.locks!.unit).toBe("nanoseconds");
    expect(toFolded(c.axes.locks!)).toContain(`${WAITER} 1197864637\n`);
  });

  test("pprof and speedscope keep the axis and its unit", () => {
    const back = parsePprof(toPprof(c, ["locks"]));
    expect(Object.keys(back.axes)).toEqual(["locks"]);
    expect(back.axes.locks!.unit).toBe("nanoseconds");
    expect(toFolded(back.axes.locks!)).toBe(toFolded(c.axes.locks!));
    const ss = JSON.parse(toSpeedscope(c, ["locks"]));
    expect(ss.profiles[0].unit).toBe("nanoseconds");
    expect(ss.profiles[0].endValue).toBe(1197864637 + 104406);
  });

  test("a folded file named *.locks.folded is the locks axis, in nanoseconds", () => {
    expect(axisFromName("api.locks.folded")).toBe("locks");
    expect(parseFolded(`${WAITER} 5\n`, "locks").axes.locks!.unit).toBe("nanoseconds");
  });

  test("the diff compares lock-wait time per second: the waiter whose wait doubled is flagged, the other is not", () => {
    // Replicates with a few percent of run-to-run spread; v2 doubles contend_on_hot_lock's wait.
    const scaled = (hot: number, other: number): Capture => {
      const s = parseStream(text);
      for (const st of s.axes.locks!.stacks) {
        const names = st.frames.map((i) => s.axes.locks!.frames[i]!.name);
        st.value = Math.round(st.value * (names.includes("contend_on_hot_lock") ? hot : other));
      }
      return parseStream(toStream(s));
    };
    const before = [scaled(1, 1), scaled(0.97, 1.04), scaled(1.03, 0.96)];
    const after = [scaled(2, 1.02), scaled(1.95, 0.98), scaled(2.05, 1)];
    // Asked for, and by default: locks, like alloc, is compared per second unless told otherwise
    // (its few self frames would push median-ratio back to share, which flags the others "down").
    for (const d of [diffCaptures({ before, after }, { normalisation: "rate" }), diffCaptures({ before, after })]) {
      expect(d.axes_compared.find((a) => a.axis === "locks")?.normalisation).toBe("rate");
      // The cause is the deepest function of the program on the hot lock's path (its own waits
      // doubled; libc's pthread_mutex_lock and __lll_lock_wait are its work); its caller moved with it.
      const flagged = d.changes.filter((x) => x.flagged && x.axis === "locks").map((x) => x.function);
      expect([...new Set(flagged)]).toEqual(["timed_lock"]);
      const caller = d.changes.find((x) => x.axis === "locks" && x.function === "contend_on_hot_lock")!;
      expect({ role: caller.role, by: caller.explained_by }).toEqual({ role: "secondary", by: ["timed_lock"] });
      expect(d.changes.some((x) => x.role && ["idle_on_condvar", "__pthread_mutex_cond_lock"].includes(x.function))).toBe(false);
    }
  });
});
