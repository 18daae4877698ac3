// The collector's caveats about a capture (ptop's summary.notes: a Python version it cannot read,
// kernel frames left unsymbolized, processes the alloc probe could not reach) reach the people who
// read the capture: the record's instrumentation (wire-bounded), the capture screen, `runner admin
// captures show`, and the version diff's notes (each distinct note once, with its captures).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { instrumentationFromStream } from "../../src/profiler/instrumentation.ts";
import { COLLECTOR_NOTE_CHARS, COLLECTOR_NOTES_MAX, Instrumentation } from "../../src/protocol/tunnel.ts";
import { toRecordInstrumentation } from "../../src/server/dispatch/merge.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import { diffCaptures } from "../../src/witness/diff.ts";
import type { Capture } from "../../src/witness/model.ts";
import { parseStream, toStream } from "../../src/witness/stream.ts";
import { makeProgram, rng, sampleCapture, version } from "../fixtures/profiles/synthetic.ts";
import { mustAdmin } from "../helpers/runner-admin.ts";
import { startWebOn, type Web } from "./web-harness.ts";

const PY = "python frames: unsupported version 3.7.16 (pid 4242): its stacks are native only";
const KERNEL = "kernel frames unsymbolized: /proc/kallsyms addresses are hidden from ptop";
const program = makeProgram({ seed: 3, stacks: 60, leaves: 20, cv: 0.01, targetShare: 0.05 });

function withNotes(c: Capture, notes: string[]): Capture {
  return { ...c, meta: { ...c.meta, measuredSec: 60, collectorNotes: notes } };
}

describe("the Profiler's instrumentation", () => {
  test("carries the stream's notes as written", () => {
    const stream = toStream(withNotes(sampleCapture(program, rng(1), { samples: 1000 }), [PY, KERNEL]));
    const i = instrumentationFromStream(stream, ["cpu"]);
    expect(i.notes).toEqual([PY, KERNEL]);
    expect(Value.Check(Instrumentation, i)).toBe(true);
    expect(toRecordInstrumentation(i).notes).toEqual([PY, KERNEL]);
  });

  test("within the wire's bounds, saying what was cut: too many notes, a note too long", () => {
    const many = Array.from({ length: 40 }, (_, k) => `note ${k}: ${"x".repeat(3000)}`);
    const i = instrumentationFromStream(toStream(withNotes(sampleCapture(program, rng(2), { samples: 1000 }), many)), ["cpu"]);
    expect(Value.Check(Instrumentation, i)).toBe(true);
    expect(i.notes).toHaveLength(COLLECTOR_NOTES_MAX);
    expect(i.notes![0]!.length).toBe(COLLECTOR_NOTE_CHARS);
    expect(i.notes![0]!.endsWith("…")).toBe(true);
    expect(i.notes!.at(-1)).toBe(`… and ${40 - (COLLECTOR_NOTES_MAX - 1)} more notes from the collector`);
  });

  test("a note's control characters (a target's process name can hold them) leave the node as ?", () => {
    const hostile = "alloc: pid 7: evil\u001b[2J\u0007name has no symbol";
    const i = instrumentationFromStream(toStream(withNotes(sampleCapture(program, rng(6), { samples: 1000 }), [hostile])), ["cpu"]);
    expect(i.notes).toEqual(["alloc: pid 7: evil?[2J?name has no symbol"]);
  });

  test("a stream without notes gives an instrumentation without them", () => {
    expect(instrumentationFromStream(toStream(withNotes(sampleCapture(program, rng(3), { samples: 1000 }), [])), ["cpu"]).notes).toBeUndefined();
  });
});

describe("the version diff", () => {
  test("each distinct note once: on every capture, or naming the captures that carry it", () => {
    const r = rng(4);
    const before = version(program, r, 3, { samples: 20_000, name: "v1" }).map((c) => withNotes(c, [KERNEL]));
    const after = version(program, r, 3, { samples: 20_000, name: "v2" }).map((c, i) => withNotes(c, i === 1 ? [KERNEL, PY] : [KERNEL]));
    const reread = (cs: Capture[]) => cs.map((c) => parseStream(toStream(c), c.meta.name));
    const d = diffCaptures({ before: reread(before), after: reread(after) });
    const collector = d.notes.filter((n) => n.startsWith("collector"));
    expect(collector).toEqual([`collector (every capture): ${KERNEL}`, `collector (v2#1): ${PY}`]);
  });
});

describe("the capture screen and `runner admin captures show`", () => {
  let dir = "";
  let web: Web;
  let id = "";
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "runner-notes-"));
    web = await startWebOn(new SqliteStore(join(dir, "runner.db")), {}, async () => {
      await web.store.close();
    });
    await web.member("acme", "m@acme.test", "member");
    const hostile = "alloc: <script>alert(1)</script> could not be reached";
    const capture = withNotes(sampleCapture(program, rng(5), { samples: 5000 }), [PY, hostile]);
    const instr = toRecordInstrumentation(instrumentationFromStream(toStream(capture), ["cpu"]));
    id = await web.pushCapture("acme", { workload: "shop", version: "1" }, capture, instr);
  });
  afterAll(async () => {
    await web.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the Instrumentation card lists them, escaped", async () => {
    const member = await web.member("acme", "n@acme.test", "member");
    const res = await member.get(`/profiling/captures/${id}`);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain("<h3 id=\"collector-notes-h\">The collector's notes</h3>");
    expect(page).toContain(`<li>${PY}</li>`);
    expect(page).toContain("<li>alloc: &lt;script&gt;alert(1)&lt;/script&gt; could not be reached</li>");
    expect(page).not.toContain("<script>alert(1)");
  });

  test("the operator's view prints one line per note", () => {
    const out = mustAdmin(dir, ["captures", "show", id]);
    expect(out).toContain(`collector note ${PY}`);
    expect(out).toContain("collector note alloc: <script>alert(1)</script> could not be reached");
  });
});
