// Reads the ptop profile stream (JSON Lines, src/protocol/profile-stream.ts) into a Capture.
//
// Every line is validated against the protocol schema; a malformed line is an error naming its
// line number, except a truncated *last* line (the collector was killed mid-write), which is
// dropped and marks the capture partial — exactly like a stream without its summary record.

import { TypeCompiler } from "@sinclair/typebox/compiler";
import { STREAM_VERSION, StreamRecord, type FrameRecord, type StackRecord, type SummaryRecord } from "../protocol/profile-stream.ts";
import { MAX_NAME_CHARS, MAX_RECORD_CHARS, MAX_STACK_DEPTH, MAX_STREAM_FRAMES, MAX_STREAM_STACKS } from "../protocol/profile-limits.ts";
import { AxisBuilder, axisTotal, AXIS_UNITS, type Capture, type Frame } from "./model.ts";

const check = TypeCompiler.Compile(StreamRecord);
// One checker per record type: the union's own first error is "/: Expected union value", which
// names nothing; the member a record claims to be (its `type`) names the field that is wrong.
const checkByType = new Map(StreamRecord.anyOf.map((member) => [member.properties.type.const as string, TypeCompiler.Compile(member)] as const));

/** What is wrong with a record that fails the schema: its own type's first error, where it has one. */
function schemaError(rec: unknown): string {
  const type = typeof rec === "object" && rec !== null ? (rec as { type?: unknown }).type : undefined;
  const member = typeof type === "string" ? checkByType.get(type) : undefined;
  if (!member) return ` ("type" ${type === undefined ? "is missing" : `${JSON.stringify(type)} is not a record type`}: one of ${[...checkByType.keys()].join(", ")})`;
  const first = member.Errors(rec).First();
  return first ? ` (${first.path || "/"}: ${first.message})` : "";
}

export class StreamError extends Error {}

/** A stream past one of ptop's own bounds (profile-limits.ts): refused whole, never cut. */
export class StreamBoundError extends StreamError {
  constructor(line: number, what: string) {
    super(`line ${line}: ${what}, more than ptop writes: refused`);
  }
}

/** One axis being built, and the map from the stream's frame ids to the axis's own frame indices. */
interface AxisEntry {
  b: AxisBuilder;
  frameMap: Map<number, number>;
}

/** What has been read so far, record by record. */
interface StreamState {
  capture: Capture;
  frames: Map<number, FrameRecord>;
  builders: Map<string, AxisEntry>;
  attached: Map<string, boolean>;
  sawHeader: boolean;
  sawSummary: boolean;
  stackRecords: number;
}

export function parseStream(text: string, name?: string): Capture {
  const capture: Capture = { meta: { source: "stream", partial: false }, axes: {}, missing: [] };
  if (name !== undefined) capture.meta.name = name;
  const state: StreamState = { capture, frames: new Map(), builders: new Map(), attached: new Map(), sawHeader: false, sawSummary: false, stackRecords: 0 };
  let truncated = false;

  // A line at a time, not split() whole: a stream of many stack records would otherwise be held
  // once more as an array of lines. A final empty string after the last "\n" is normal.
  let lineNo = 0;
  for (let start = 0; start < text.length; ) {
    let nl = text.indexOf("\n", start);
    const last = nl < 0;
    if (last) nl = text.length;
    const line = text.slice(start, nl);
    start = nl + 1;
    lineNo++;
    // Checked before JSON.parse: a 7 MB stack line costs its parse, whatever it holds.
    if (line.length > MAX_RECORD_CHARS) throw new StreamBoundError(lineNo, `a record of ${line.length} characters (ptop's longest is under ${MAX_RECORD_CHARS})`);
    if (line.trim() === "") continue;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      if (last) {
        truncated = true; // killed mid-line: keep what came before
        break;
      }
      throw new StreamError(`line ${lineNo}: not valid JSON`);
    }
    readRecord(state, rec, lineNo);
  }
  return finishCapture(state, truncated);
}

/** Validates one parsed line against the schema and the stream's order, and takes it in. */
function readRecord(state: StreamState, rec: unknown, lineNo: number): void {
  if (!check.Check(rec)) throw new StreamError(`line ${lineNo}: invalid record${schemaError(rec)}`);
  if (!state.sawHeader && rec.type !== "header") throw new StreamError(`line ${lineNo}: the first record must be the header`);
  if (state.sawSummary) throw new StreamError(`line ${lineNo}: record after the summary`);
  const { capture, frames, builders, attached } = state;
  switch (rec.type) {
    case "header": {
      if (state.sawHeader) throw new StreamError(`line ${lineNo}: a second header`);
      state.sawHeader = true;
      const m = capture.meta;
      m.workload = rec.workload;
      m.probesRequested = [...rec.probes_requested];
      m.frequencyHz = rec.frequency_hz;
      m.startedAtMs = rec.started_at_ms;
      m.measuredSec = rec.duration_sec; // replaced by the summary's measured_sec when present
      break;
    }
    case "probe":
      attached.set(rec.name, rec.attached);
      if (!rec.attached) capture.missing.push({ axis: rec.name, reason: rec.reason ?? "probe did not attach (no reason given)" });
      break;
    case "axis":
      if (attached.get(rec.name) === false) throw new StreamError(`line ${lineNo}: axis "${rec.name}" declared for a probe that did not attach`);
      if (builders.has(rec.name)) throw new StreamError(`line ${lineNo}: axis "${rec.name}" declared twice`);
      builders.set(rec.name, { b: new AxisBuilder(rec.name, rec.unit, rec.period_ns), frameMap: new Map() });
      break;
    case "process":
      (capture.meta.processes ??= []).push({ pid: rec.pid, comm: rec.comm, ...(rec.nspid !== undefined ? { nspid: rec.nspid } : {}) });
      break;
    case "frame":
      if (frames.size >= MAX_STREAM_FRAMES) throw new StreamBoundError(lineNo, `more than ${MAX_STREAM_FRAMES} frame records`);
      if ((rec.function?.length ?? 0) > MAX_NAME_CHARS || (rec.module?.length ?? 0) > MAX_NAME_CHARS) throw new StreamBoundError(lineNo, `a function or module name of more than ${MAX_NAME_CHARS} characters`);
      if (frames.has(rec.id)) throw new StreamError(`line ${lineNo}: frame id ${rec.id} defined twice`);
      frames.set(rec.id, rec);
      break;
    case "stack":
      addStack(state, rec, lineNo);
      break;
    case "summary":
      state.sawSummary = true;
      applySummary(capture, rec, builders);
      break;
  }
}

/** Adds one stack record to its axis, interning the frames it references on first use. */
function addStack(state: StreamState, rec: StackRecord, lineNo: number): void {
  if (++state.stackRecords > MAX_STREAM_STACKS) throw new StreamBoundError(lineNo, `more than ${MAX_STREAM_STACKS} stack records`);
  if (rec.frames.length > MAX_STACK_DEPTH) throw new StreamBoundError(lineNo, `a stack of ${rec.frames.length} frames (ptop's deepest is ${MAX_STACK_DEPTH})`);
  if (state.attached.get(rec.axis) === false) throw new StreamError(`line ${lineNo}: stack on axis "${rec.axis}" whose probe did not attach`);
  let entry = state.builders.get(rec.axis);
  if (!entry) {
    // Tolerate a collector that omits the axis record: the unit is implied by the axis name.
    entry = { b: new AxisBuilder(rec.axis, AXIS_UNITS[rec.axis] ?? "count"), frameMap: new Map() };
    state.builders.set(rec.axis, entry);
  }
  const ids: number[] = new Array(rec.frames.length);
  for (let k = 0; k < rec.frames.length; k++) {
    const fid = rec.frames[k]!;
    let local = entry.frameMap.get(fid);
    if (local === undefined) {
      const fr = state.frames.get(fid);
      if (!fr) throw new StreamError(`line ${lineNo}: stack references undefined frame id ${fid}`);
      local = entry.b.frame(toFrame(fr));
      entry.frameMap.set(fid, local);
    }
    ids[k] = local;
  }
  entry.b.add(ids, rec.value, rec.total_ns);
}

/** The Capture once the last record is read: partial if the summary never came, absent probes listed. */
function finishCapture(state: StreamState, truncated: boolean): Capture {
  const { capture, attached } = state;
  if (!state.sawHeader) throw new StreamError("empty stream: no header record");
  if (!state.sawSummary) {
    capture.meta.partial = true;
    capture.meta.partialReason = truncated
      ? "stream truncated mid-record (collector killed)"
      : "stream has no summary record (collector died before the end of the window)";
  }
  for (const [axis, { b }] of state.builders) capture.axes[axis] = b.profile;
  // A requested probe with neither a probe record nor data is also absent.
  for (const p of capture.meta.probesRequested ?? []) {
    if (!capture.axes[p] && !capture.missing.some((m) => m.axis === p) && attached.get(p) !== true) {
      capture.missing.push({ axis: p, reason: "no probe record in the stream" });
    }
  }
  return capture;
}

function applySummary(capture: Capture, rec: SummaryRecord, builders: Map<string, unknown>): void {
  const m = capture.meta;
  m.samples = rec.samples;
  m.lost = rec.lost;
  m.measuredSec = rec.measured_sec;
  if (rec.notes?.length) m.collectorNotes = [...rec.notes];
  if (rec.sample_weight) m.sampleWeight = { ...rec.sample_weight };
  if (rec.partial) {
    m.partial = true;
    if (rec.partial_reason !== undefined) m.partialReason = rec.partial_reason;
  }
  // A probe whose program never ran measured nothing: its axis is absent, never compared as zero.
  for (const [axis, reason] of Object.entries(rec.not_fired ?? {})) {
    builders.delete(axis);
    capture.missing.push({ axis, reason });
  }
}

function toFrame(r: FrameRecord): Frame {
  const f: Frame = { name: r.function || (r.address ? `[unknown] ${r.address}` : "[unknown]"), kind: r.kind };
  if (r.module !== undefined) f.module = r.module;
  return f;
}

/** Writes a Capture as a ptop stream (used by tests and simulations to produce realistic inputs). */
export function toStream(c: Capture): string {
  const out: string[] = [];
  const axes = Object.keys(c.axes);
  const requested = c.meta.probesRequested ?? [...axes, ...c.missing.map((m) => m.axis)];
  out.push(
    JSON.stringify({
      type: "header",
      version: STREAM_VERSION,
      workload: c.meta.workload ?? "unknown",
      probes_requested: requested,
      frequency_hz: c.meta.frequencyHz ?? 99,
      warmup_sec: 0,
      duration_sec: c.meta.measuredSec ?? 0,
      started_at_ms: c.meta.startedAtMs ?? 0,
    }),
  );
  for (const a of axes) out.push(JSON.stringify({ type: "probe", name: a, attached: true }));
  for (const m of c.missing) out.push(JSON.stringify({ type: "probe", name: m.axis, attached: false, reason: m.reason }));
  for (const p of c.meta.processes ?? []) out.push(JSON.stringify({ type: "process", ...p }));
  let nextId = 0;
  for (const a of axes) {
    const p = c.axes[a]!;
    out.push(JSON.stringify({ type: "axis", name: a, unit: p.unit, ...(p.periodNs !== undefined ? { period_ns: p.periodNs } : {}) }));
    const base = nextId;
    p.frames.forEach((f, i) => {
      out.push(JSON.stringify({ type: "frame", id: base + i, function: f.name, kind: f.kind ?? "native", ...(f.module ? { module: f.module } : {}) }));
    });
    nextId += p.frames.length;
    for (const s of p.stacks) {
      out.push(
        JSON.stringify({ type: "stack", axis: a, frames: s.frames.map((x) => x + base), value: s.value, ...(s.totalNs !== undefined ? { total_ns: s.totalNs } : {}) }),
      );
    }
  }
  if (!c.meta.partial) {
    const samples: Record<string, number> = {};
    for (const a of axes) samples[a] = axisTotal(c.axes[a]!);
    out.push(
      JSON.stringify({
        type: "summary", samples, lost: {}, partial: false, ended_at_ms: (c.meta.startedAtMs ?? 0) + Math.round((c.meta.measuredSec ?? 0) * 1000),
        measured_sec: c.meta.measuredSec ?? 0, ...(c.meta.collectorNotes?.length ? { notes: c.meta.collectorNotes } : {}),
        ...(c.meta.sampleWeight ? { sample_weight: c.meta.sampleWeight } : {}),
      }),
    );
  }
  return out.join("\n") + "\n";
}
