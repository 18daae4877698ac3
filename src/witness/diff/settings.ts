// The diff's options with every default filled in: one place that says what "not given" means.

import type { DiffOptions } from "../diff-result.ts";
import type { Normalisation } from "../stats/normalise.ts";

export type DiffSettings = Required<DiffOptions>;

export function resolveDiffSettings(opts: DiffOptions = {}): DiffSettings {
  return {
    normalisation: opts.normalisation ?? "median-ratio",
    q: opts.q ?? 0.05,
    minEffect: opts.minEffect ?? 0.05,
    minShare: opts.minShare ?? 0.001,
    minCount: opts.minCount ?? 5,
    priorDispersion: opts.priorDispersion ?? 0.01,
    detectEffect: opts.detectEffect ?? 0.1,
    detectShare: opts.detectShare ?? 0.01,
    targetPower: opts.targetPower ?? 0.8,
    weighting: opts.weighting ?? "promise",
  };
}

/** Every normalisation the diff fits and reports; the verdict uses one of them. */
export const ALL_NORMS: Normalisation[] = ["median-ratio", "share", "rate", "cpu"];

/** Axes whose totals are exact counts of what the program did: bytes allocated (every call is
 *  counted, only the split between stacks is sampled) and lock-wait time (every contended wait is
 *  timed, none sampled). */
const EXACT_TOTAL_AXES = new Set(["alloc", "locks"]);

/**
 * The normalisation one axis's verdict uses. alloc and locks compare per second unless a
 * normalisation was asked for: their totals are not a sampling artefact to divide out, and their
 * self frames are only the few allocator entry points (malloc, calloc, runtime.mallocgc …) or lock
 * waits (__lll_lock_wait, futex wrappers), so median-ratio would rarely have the 5 common
 * functions it needs, and the share fallback would flag every other site or waiter as "down" when
 * one grows.
 */
export function axisNormalisation(axis: string, s: DiffSettings, asked: Normalisation | undefined): Normalisation {
  if (asked === undefined && EXACT_TOTAL_AXES.has(axis)) return "rate";
  return s.normalisation;
}
