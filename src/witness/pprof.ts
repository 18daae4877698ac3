// pprof codec (gzipped profile.proto) through the `pprof-format` package.
//
// Writing: one file may carry several axes; each axis gets its own sample-type column(s) and a
// sample belongs to exactly one axis (its other columns are 0). Absent axes get no column at all.
// cpu carries samples/count plus cpu/nanoseconds (samples × period) so `go tool pprof` shows time;
// syscalls carries calls/count plus syscall_time/nanoseconds. Capture metadata that pprof has no
// field for (workload, version, missing axes, partial) travels in `comment` strings "witness.key=value".
//
// Reading: every primary column becomes an axis; derived columns (cpu ns next to a sample count,
// syscall_time) are folded back into their primary. Foreign profiles (Go, Pyroscope) read the same way.

import { Function as PFunction, Line, Location, Mapping, Profile, Sample, StringTable, ValueType } from "pprof-format";
import { AxisBuilder, type AxisProfile, AXIS_UNITS, type AxisUnit, type Capture } from "./model.ts";
import { gzipSync } from "node:zlib";
import { CorruptGzipError, gunzipProfileSync, isGzip } from "./gunzip.ts";

export class PprofError extends Error {}

interface Column {
  axis: string;
  type: string;
  unit: string;
  /** How this column's value is derived from a stack. */
  value: (s: { value: number; totalNs?: number }, p: AxisProfile) => number;
}

function columnsFor(p: AxisProfile): Column[] {
  if (p.axis === "cpu" || p.unit === "samples") {
    const cols: Column[] = [{ axis: p.axis, type: p.axis === "cpu" ? "samples" : p.axis, unit: "count", value: (s) => s.value }];
    if (p.periodNs) cols.push({ axis: p.axis, type: p.axis, unit: "nanoseconds", value: (s, pr) => s.value * (pr.periodNs ?? 0) });
    return cols;
  }
  if (p.axis === "syscalls") {
    const cols: Column[] = [{ axis: p.axis, type: "syscalls", unit: "count", value: (s) => s.value }];
    if (p.stacks.some((s) => s.totalNs !== undefined)) cols.push({ axis: p.axis, type: "syscall_time", unit: "nanoseconds", value: (s) => s.totalNs ?? 0 });
    return cols;
  }
  return [{ axis: p.axis, type: p.axis, unit: p.unit === "calls" ? "count" : p.unit, value: (s) => s.value }];
}

/** Encodes the given axes (default: all present) as gzipped pprof bytes. */
export function toPprof(c: Capture, axes: string[] = Object.keys(c.axes)): Uint8Array {
  const st = new StringTable();
  const profiles = axes.map((a) => {
    const p = c.axes[a];
    if (!p) throw new PprofError(`axis "${a}" is not in this capture`);
    return p;
  });
  const columns = profiles.flatMap(columnsFor);
  const sampleType = columns.map((col) => new ValueType({ type: st.dedup(col.type), unit: st.dedup(col.unit) }));

  const functions: PFunction[] = [];
  const locations: Location[] = [];
  const mappings: Mapping[] = [];
  const funcByName = new Map<string, number>();
  const mappingByModule = new Map<string, number>();
  const samples: Sample[] = [];

  for (const p of profiles) {
    // Location per (axis, frame): frames of different axes are interned separately.
    const locIds = p.frames.map((f) => {
      const key = f.module ? `${f.name}\u0000${f.module}` : f.name;
      let fid = funcByName.get(key);
      if (fid === undefined) {
        fid = functions.length + 1;
        functions.push(new PFunction({ id: fid, name: st.dedup(f.name), systemName: st.dedup(f.name), filename: st.dedup(f.module ?? "") }));
        funcByName.set(key, fid);
      }
      let mid = 0;
      if (f.module) {
        mid = mappingByModule.get(f.module) ?? 0;
        if (mid === 0) {
          mid = mappings.length + 1;
          mappings.push(new Mapping({ id: mid, filename: st.dedup(f.module), hasFunctions: true }));
          mappingByModule.set(f.module, mid);
        }
      }
      const lid = locations.length + 1;
      locations.push(new Location({ id: lid, mappingId: mid, line: [new Line({ functionId: fid })] }));
      return lid;
    });
    const mine = columns.map((col) => col.axis === p.axis);
    for (const s of p.stacks) {
      if (s.frames.length === 0) continue;
      const value = columns.map((col, i) => (mine[i] ? col.value(s, p) : 0));
      // pprof lists locations leaf first.
      const locationId = new Array<number>(s.frames.length);
      for (let k = 0; k < s.frames.length; k++) locationId[k] = locIds[s.frames[s.frames.length - 1 - k]!]!;
      samples.push(new Sample({ locationId, value }));
    }
  }

  const comments: string[] = [];
  const m = c.meta;
  if (m.workload) comments.push(`witness.workload=${m.workload}`);
  if (m.version) comments.push(`witness.version=${m.version}`);
  if (m.env) comments.push(`witness.env=${m.env}`);
  if (m.measuredSec !== undefined) comments.push(`witness.measured_sec=${m.measuredSec}`);
  if (m.partial) comments.push(`witness.partial=${m.partialReason ?? "partial"}`);
  for (const miss of c.missing) comments.push(`witness.missing=${miss.axis}: ${miss.reason}`);

  const cpu = profiles.find((p) => p.axis === "cpu" && p.periodNs);
  const profile = new Profile({
    sampleType,
    sample: samples,
    mapping: mappings,
    location: locations,
    function: functions,
    stringTable: st,
    timeNanos: m.startedAtMs !== undefined ? BigInt(m.startedAtMs) * 1_000_000n : 0,
    durationNanos: m.measuredSec !== undefined ? BigInt(Math.round(m.measuredSec * 1e9)) : 0,
    ...(cpu ? { periodType: new ValueType({ type: st.dedup("cpu"), unit: st.dedup("nanoseconds") }), period: cpu.periodNs } : {}),
    comment: comments.map((s) => st.dedup(s)),
  });
  return new Uint8Array(gzipSync(profile.encode()));
}

/** Decodes gzipped (or raw) pprof bytes into a Capture. */
export function parsePprof(bytes: Uint8Array, name?: string): Capture {
  const prof = decodeProfile(bytes);
  const strings = prof.stringTable.strings;
  const str = (i: unknown): string => {
    const s = strings[Number(i)];
    if (s === undefined) throw new PprofError(`string index ${String(i)} out of range`);
    return s;
  };
  const types = prof.sampleType.map((t) => ({ type: str(t.type), unit: str(t.unit) }));
  if (types.length === 0) throw new PprofError("profile has no sample types");
  const roles = columnRoles(types);
  const locFrames = locationFrames(prof, str);
  const builders = axisBuilders(types, roles, Number(prof.period) || undefined);
  addSamples(prof, types.length, roles, builders, locFrames);

  const capture: Capture = { meta: { source: "pprof", partial: false }, axes: {}, missing: [] };
  if (name !== undefined) capture.meta.name = name;
  for (const [axis, b] of builders) capture.axes[axis] = b.profile;
  const dur = Number(prof.durationNanos);
  if (dur > 0) capture.meta.measuredSec = dur / 1e9;
  const t0 = Number(prof.timeNanos);
  if (t0 > 0) capture.meta.startedAtMs = Math.round(t0 / 1e6);
  readComments(capture, prof, str);
  return capture;
}

/** The profile.proto message inside gzipped (or raw) bytes. */
function decodeProfile(bytes: Uint8Array): Profile {
  let raw = bytes;
  if (isGzip(bytes)) {
    try {
      raw = gunzipProfileSync(bytes, "the gzip data");
    } catch (err) {
      throw err instanceof CorruptGzipError ? new PprofError("corrupt gzip data") : err;
    }
  }
  try {
    return Profile.decode(raw);
  } catch (e) {
    throw new PprofError(`not a pprof profile (${e instanceof Error ? e.message : String(e)})`);
  }
}

/** A sample column's role: an axis's primary value, or derived from one (skipped, or its totalNs). */
interface ColumnRole {
  axis: string;
  primary: boolean;
  totalNs?: true;
}

function columnRoles(types: { type: string; unit: string }[]): ColumnRole[] {
  const hasSamples = types.some((x) => x.type === "samples");
  return types.map((t) => {
    if (t.type === "samples") return { axis: "cpu", primary: true };
    if (t.type === "cpu" && t.unit === "nanoseconds" && hasSamples) return { axis: "cpu", primary: false };
    if (t.type === "syscall_time") return { axis: "syscalls", primary: false, totalNs: true };
    return { axis: t.type, primary: true };
  });
}

type PprofFrame = { name: string; module?: string };

/** Each location id's frames: one, or several where calls were inlined. */
function locationFrames(prof: Profile, str: (i: unknown) => string): Map<number, PprofFrame[]> {
  const funcs = new Map<number, PprofFrame>();
  for (const f of prof.function) {
    const entry: PprofFrame = { name: str(f.name) || `[unknown] fn#${String(f.id)}` };
    const file = str(f.filename);
    if (file) entry.module = file;
    funcs.set(Number(f.id), entry);
  }
  const mappingFile = new Map<number, string>();
  for (const mp of prof.mapping) mappingFile.set(Number(mp.id), str(mp.filename));
  // One location may expand to several frames (inlining): lines are listed callee first.
  const locFrames = new Map<number, PprofFrame[]>();
  for (const loc of prof.location) {
    const frames = loc.line.map((l) => {
      const f = funcs.get(Number(l.functionId));
      if (!f) throw new PprofError(`location ${String(loc.id)} references missing function ${String(l.functionId)}`);
      return f;
    });
    if (frames.length === 0) {
      const mod = mappingFile.get(Number(loc.mappingId));
      frames.push({ name: `[unknown] 0x${BigInt(loc.address).toString(16)}`, ...(mod ? { module: mod } : {}) });
    }
    locFrames.set(Number(loc.id), frames);
  }
  return locFrames;
}

/** One builder per primary column's axis; its unit is the axis's own, else the column's (ns, bytes, or count). */
function axisBuilders(types: { unit: string }[], roles: ColumnRole[], period: number | undefined): Map<string, AxisBuilder> {
  const builders = new Map<string, AxisBuilder>();
  roles.forEach((r, i) => {
    if (r.primary && !builders.has(r.axis)) {
      const unit = AXIS_UNITS[r.axis] ?? ((types[i]!.unit === "nanoseconds" ? "nanoseconds" : types[i]!.unit === "bytes" ? "bytes" : "count") as AxisUnit);
      builders.set(r.axis, new AxisBuilder(r.axis, unit, r.axis === "cpu" ? period : undefined));
    }
  });
  return builders;
}

/** Adds every sample's positive primary values to their axes, root first. */
function addSamples(prof: Profile, columns: number, roles: ColumnRole[], builders: Map<string, AxisBuilder>, locFrames: Map<number, PprofFrame[]>): void {
  const tsCol = roles.findIndex((r) => "totalNs" in r);
  for (const s of prof.sample) {
    if (s.value.length !== columns) throw new PprofError("sample value count does not match sample types");
    for (let i = 0; i < roles.length; i++) {
      const r = roles[i]!;
      if (!r.primary) continue;
      const v = Number(s.value[i]);
      if (!(v > 0)) continue;
      const b = builders.get(r.axis)!;
      const ids: number[] = [];
      for (let k = s.locationId.length - 1; k >= 0; k--) {
        const fr = locFrames.get(Number(s.locationId[k]));
        if (!fr) throw new PprofError(`sample references missing location ${String(s.locationId[k])}`);
        for (let j = fr.length - 1; j >= 0; j--) ids.push(b.frame(fr[j]!));
      }
      const totalNs = r.axis === "syscalls" && tsCol >= 0 ? Number(s.value[tsCol]) : undefined;
      b.add(ids, v, totalNs);
    }
  }
}

/** Capture metadata that pprof has no field for, from its "witness.key=value" comments. */
function readComments(capture: Capture, prof: Profile, str: (i: unknown) => string): void {
  for (const ci of prof.comment) {
    const text = str(ci);
    const m = text.match(/^witness\.([a-z_]+)=(.*)$/s);
    if (!m) continue;
    const [, key, val] = m as unknown as [string, string, string];
    if (key === "workload") capture.meta.workload = val;
    else if (key === "version") capture.meta.version = val;
    else if (key === "env") capture.meta.env = val;
    else if (key === "measured_sec" && Number.isFinite(Number(val))) capture.meta.measuredSec = Number(val);
    else if (key === "partial") {
      capture.meta.partial = true;
      capture.meta.partialReason = val;
    } else if (key === "missing") {
      const at = val.indexOf(": ");
      const axis = at > 0 ? val.slice(0, at) : val;
      if (!capture.axes[axis]) capture.missing.push({ axis, reason: at > 0 ? val.slice(at + 2) : "not attached" });
    }
  }
}
