// The shape of a diff: options in, result out (what `runner witness diff --json` prints and the
// control plane stores). Kept apart from the computation in diff.ts.

import type { Normalisation } from "./stats/normalise.ts";

export interface DiffOptions {
  /** Normalisation the verdict uses (default median-ratio). */
  normalisation?: Normalisation;
  /** Family-wise error rate: the chance that any flagged function is unchanged (default 0.05). */
  q?: number;
  /** Smallest relative change worth flagging (default 0.05 = 5%). */
  minEffect?: number;
  /** Functions below this pooled share of the axis and… (default 0.001) */
  minShare?: number;
  /** …below this mean count per capture are not tested (default 5). */
  minCount?: number;
  /** Run-to-run α assumed when no side has replicates (default 0.01: a 10% CV; real captures on a busy host show far louder kernel functions, see bench/RESULTS.md). */
  priorDispersion?: number;
  /** The change a promise is about: "no function above S of the time changed by more than 10%" … */
  detectEffect?: number;
  /** … the share the remedy of an `insufficient` verdict aims at, and the focus of `detectability` weighting (default 1%) … */
  detectShare?: number;
  /** … with this probability (default 0.8). */
  targetPower?: number;
  /**
   * How Holm spreads q over the own-cost tests: toward the functions the promise this capture
   * supports covers, by detectability of a detectEffect change (promise, the default); the same
   * with the focus fixed at detectShare (detectability, the design before issue 30); or evenly.
   */
  weighting?: "promise" | "detectability" | "uniform";
}

export interface Side {
  value: number;
  share: number;
  /** Per second of measured time; null when a capture has no measured time (folded input). */
  rate: number | null;
}

export interface NormalisedChange {
  relative_change: number;
  interval: [number, number];
  p: number;
  flagged: boolean;
}

export interface Change {
  function: string;
  axis: string;
  kind: "self" | "inclusive";
  /** A changed function the verdict counts: the test cleared the noise floor and the function is a cause. */
  flagged: boolean;
  /**
   * cause: the function's own work changed (its own count cleared the noise floor, or what is left of
   * an aggregate without the causes' samples still does); secondary: the count cleared the noise
   * floor only through causes it ran under or over (`explained_by`) — not counted as a changed
   * function; null: the count did not clear the noise floor.
   */
  role: "cause" | "secondary" | null;
  /** For a secondary change: the causes that explain it. */
  explained_by: string[];
  /** changed: flagged (a cause); secondary: see role; unchanged: the 95% interval lies within ±min effect; insufficient: neither. */
  verdict: "changed" | "secondary" | "unchanged" | "insufficient";
  direction: "up" | "down";
  /** For flagged changes: confirmed by a later after-replicate alone, or still suspect. */
  confirmation: "confirmed" | "suspect" | null;
  unit: string;
  before: Side;
  after: Side;
  relative_change: number;
  interval: [number, number];
  p: number;
  /** Weighted-Holm adjusted p-value on the overall scale: flagged ⇔ adjusted_p ≤ q (and ≥ min effect). */
  adjusted_p: number;
  /** Smallest relative change that could be flagged for this function here. */
  noise_floor: number;
  /** The run-to-run α (squared CV) this function's moderated variance amounts to. */
  dispersion: number;
  /** The chance a detect.effect change of this function is flagged in this design (its own variance and bar). */
  power: number;
  /** For an undecided (`insufficient`) change: captures per version that would decide it; null when decided or when more than 200 would be needed. */
  captures_needed: number | null;
  normalisations: Partial<Record<Normalisation, NormalisedChange>>;
}

export interface AxisReport {
  axis: string;
  unit: string;
  captures: { before: number; after: number };
  excluded: { capture: string; reason: string }[];
  normalisation: Normalisation;
  normalisation_note?: string;
  dispersion: {
    source: "replicates" | "prior";
    /** Pooled α (squared run-to-run CV) of single functions. */
    pooled: number;
    run_to_run_cv: number;
    /**
     * How much functions differ from the pool: the moderated quasi-dispersion prior — scale s0²
     * (1 = as modelled) and degrees of freedom d0 (null: they agree, the tests are normal) — and
     * the functions far louder than the rest, which keep their own variance.
     */
    moderation: { prior_scale: number; prior_df: number | null; loud: number } | null;
    /** Replicate degrees of freedom per function (captures − 2). */
    df: number;
    functions_pooled: number;
  };
  tested: number;
  distinct_tests: number;
  untested: number;
  /** Tests flagged as causes. */
  flagged: number;
  /** Tests that cleared the noise floor only through causes (secondary changes). */
  secondary: number;
  flagged_by_normalisation: Partial<Record<Normalisation, number>>;
  power: number;
  replicates_needed: number | null;
  /**
   * The promise this axis supports: no function above `share` of the axis changed by more than
   * detect.effect would go unflagged (flagged with probability `power`); null share: none up to
   * 10%. `equivalent`: every own-cost function above that share has its 90% interval inside
   * ±detect.effect (the equivalence test behind `unchanged`); `wide` names those that do not.
   */
  promise: { share: number | null; power: number; equivalent: boolean; wide: string[] };
}

export interface DiffResult {
  verdict: "changed" | "unchanged" | "insufficient";
  reason: string;
  normalisation: Normalisation;
  normalisations_reported: Normalisation[];
  q: number;
  min_effect: number;
  multiple_testing: {
    method: "Holm";
    weighting: "promise" | "detectability" | "uniform";
    tests: number;
    /** Self counts (where cost lives) and inclusive-only aggregates are separate families; their q add up to q (Bonferroni). */
    families: { family: "self" | "inclusive"; tests: number; q: number }[];
  };
  /** The verdict's promise (the weakest compared axis's): share null when no useful promise could be made. */
  detect: { effect: number; share: number | null; power: number };
  /** Captures per version that would decide, when the verdict is insufficient (null: more than 200, or not insufficient). */
  replicates_needed: number | null;
  /** What capture would decide an insufficient verdict: captures per version, or samples per capture (longer or denser captures) × samples_times; null otherwise. */
  remedy: { share: number; captures: number | null; samples_times: number | null; duration_sec: number | null } | null;
  axes_compared: AxisReport[];
  axes_not_compared: { axis: string; reason: string }[];
  captures: { before: CaptureInfo[]; after: CaptureInfo[] };
  notes: string[];
  changes: Change[];
}

export interface CaptureInfo {
  name: string;
  role: "head" | "replicate";
  partial: boolean;
  measured_sec: number | null;
  instrumentation: string;
}
