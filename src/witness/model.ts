// The in-memory profile model every codec reads into and writes from.
//
// A Capture is one measurement window of one workload: one AxisProfile per axis that was measured.
// An axis whose probe did not attach is listed in `missing` and has no AxisProfile — absent, never
// zero — so a diff can refuse to compare it instead of reporting a fake 100% drop.

import { probeCoverage } from "../protocol/instrumentation-statement.ts";
import { StackSet } from "./stack-set.ts";

export type AxisUnit = "samples" | "nanoseconds" | "calls" | "count" | "bytes";

/** The unit of each axis ptop records (protocol/profile-stream.ts), for inputs that do not say it. */
export const AXIS_UNITS: Readonly<Record<string, AxisUnit>> = { cpu: "samples", offcpu: "nanoseconds", syscalls: "calls", locks: "nanoseconds", alloc: "bytes" };

export interface Frame {
  /** Function name (or a placeholder such as "[unknown] 0x7f…" when unsymbolized). */
  name: string;
  module?: string;
  kind?: string;
}

export interface Stack {
  /** Indexes into AxisProfile.frames, root (outermost caller) first, leaf last. */
  frames: number[];
  /** Samples, nanoseconds or calls, per the axis unit. */
  value: number;
  /** For the syscalls axis: summed latency of those calls. */
  totalNs?: number;
}

export interface AxisProfile {
  axis: string;
  unit: AxisUnit;
  /** Nanoseconds represented by one sample (cpu axis). */
  periodNs?: number;
  frames: Frame[];
  stacks: Stack[];
}

export interface MissingAxis {
  axis: string;
  reason: string;
}

export interface CaptureMeta {
  source: "stream" | "pprof" | "folded" | "speedscope";
  /** File name or label the capture was read from (for reports). */
  name?: string;
  workload?: string;
  version?: string;
  env?: string;
  startedAtMs?: number;
  /** Seconds of measurement (after warm-up); rate normalisation needs it. */
  measuredSec?: number;
  frequencyHz?: number;
  /** True when the collector stopped early (or the stream has no summary record). */
  partial: boolean;
  partialReason?: string;
  probesRequested?: string[];
  samples?: Record<string, number>;
  lost?: Record<string, number>;
  processes?: { pid: number; comm: string; nspid?: number }[];
  /** The collector's caveats about this capture (a ptop stream's summary.notes). */
  collectorNotes?: string[];
  /** Per axis thinned by ptop's budget: the most samples one kept sample stands for (summary.sample_weight). */
  sampleWeight?: Record<string, number>;
}

export interface Capture {
  meta: CaptureMeta;
  axes: Record<string, AxisProfile>;
  missing: MissingAxis[];
}

/**
 * The axis named `axis`, or undefined. The name may come from a URL or a command line, so it is
 * looked up among the capture's own axes only: "__proto__", "constructor" or "toString" would
 * otherwise find Object.prototype's members and be taken for a profile.
 */
export function axisOf(c: Capture, axis: string): AxisProfile | undefined {
  return Object.hasOwn(c.axes, axis) ? c.axes[axis] : undefined;
}

/** Sum of an axis' stack values (samples, ns or calls). */
export function axisTotal(p: AxisProfile): number {
  let t = 0;
  for (const s of p.stacks) t += s.value;
  return t;
}

/** "fully instrumented" or "N of M probes", as capture records state it. */
export function instrumentation(c: Capture): string {
  const present = Object.keys(c.axes).length;
  return probeCoverage(present, present + c.missing.length, c.missing.length);
}

/**
 * The largest sum of one axis' values witness accepts. Past Number.MAX_VALUE a sum becomes
 * Infinity, which every later step (shares, folded output, witness's own reader) cannot carry, so
 * such input is refused when it is read rather than written out as "Infinity".
 */
export const MAX_AXIS_TOTAL = 1e308;

export class AxisTotalError extends Error {
  constructor(axis: string) {
    super(`the values of axis "${axis}" sum beyond ${MAX_AXIS_TOTAL}, the largest total witness can hold: refused`);
  }
}

/**
 * Builds an AxisProfile incrementally, interning frames by (name, module) and merging equal stacks.
 * Equal stacks are found through a StackSet of their frame ids, not a string key per stack.
 */
export class AxisBuilder {
  private frameIndex = new Map<string, number>();
  private stackIndex = new StackSet();
  private total = 0;
  private totalNs = 0;
  readonly profile: AxisProfile;

  constructor(axis: string, unit: AxisUnit, periodNs?: number) {
    this.profile = { axis, unit, frames: [], stacks: [] };
    if (periodNs !== undefined) this.profile.periodNs = periodNs;
  }

  frame(f: Frame): number {
    const key = f.module ? `${f.name}\u0000${f.module}` : f.name;
    let id = this.frameIndex.get(key);
    if (id === undefined) {
      id = this.profile.frames.length;
      this.profile.frames.push(f);
      this.frameIndex.set(key, id);
    }
    return id;
  }

  add(frames: number[], value: number, totalNs?: number): void {
    this.total += value;
    if (totalNs !== undefined) this.totalNs += totalNs;
    if (!(this.total <= MAX_AXIS_TOTAL && this.totalNs <= MAX_AXIS_TOTAL)) throw new AxisTotalError(this.profile.axis);
    const at = this.stackIndex.intern(frames);
    if (at < this.profile.stacks.length) {
      const s = this.profile.stacks[at]!;
      s.value += value;
      if (totalNs !== undefined) s.totalNs = (s.totalNs ?? 0) + totalNs;
      return;
    }
    const s: Stack = { frames, value };
    if (totalNs !== undefined) s.totalNs = totalNs;
    this.profile.stacks.push(s);
  }
}
