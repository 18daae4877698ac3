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
    weighting: opts.weighting ?? "detectability",
  };
}

/** Every normalisation the diff fits and reports; the verdict uses one of them. */
export const ALL_NORMS: Normalisation[] = ["median-ratio", "share", "rate", "cpu"];

/**
 * The normalisation one axis's verdict uses. The alloc axis compares bytes allocated per second
 * unless a normalisation was asked for: its total is an exact count of what the program did (not
 * a sampling artefact to divide out), and its self frames are only the few allocator entry points
 * (malloc, calloc, runtime.mallocgc …), so median-ratio would rarely have the 5 common functions
 * it needs and the share fallback would flag every other site when one site grows.
 */
export function axisNormalisation(axis: string, s: DiffSettings, asked: Normalisation | undefined): Normalisation {
  if (asked === undefined && axis === "alloc") return "rate";
  return s.normalisation;
}
