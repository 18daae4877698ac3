// RUNNER_FREQUENCY_HZ: the cpu probe's sampling frequency in every capture of this Profiler. Like
// the probe set, it is the operator's choice (the capture request's fields are fixed by the
// reference): more samples detect smaller changes between versions, and the cost falls on this
// host's workloads. Unset: ptop's own default, the highest frequency measured within 1% target
// slowdown (bench/RESULTS.md, "Default frequency").
//
// Both numbers are ptop's (native/ptop/src/collector/args.c); a unit test keeps them equal.

export const FREQUENCY_VARIABLE = "RUNNER_FREQUENCY_HZ";
export const PTOP_DEFAULT_FREQUENCY_HZ = 399;
export const PTOP_MAX_FREQUENCY_HZ = 10_000;

export type FrequencySetting = { hz?: number; warning?: string } | { problem: string };

/** The frequency from RUNNER_FREQUENCY_HZ (unset or empty: none, so ptop's default applies), or why it is invalid. */
export function frequencyFrom(env: Record<string, string | undefined>): FrequencySetting {
  const raw = env[FREQUENCY_VARIABLE]?.trim();
  if (raw === undefined || raw === "") return {};
  const hz = /^\d{1,6}$/.test(raw) ? Number(raw) : NaN;
  if (!(hz >= 1 && hz <= PTOP_MAX_FREQUENCY_HZ)) {
    return { problem: `${FREQUENCY_VARIABLE} is "${raw.slice(0, 20)}"; it takes a whole number of Hz from 1 to ${PTOP_MAX_FREQUENCY_HZ} (unset: ptop's default, ${PTOP_DEFAULT_FREQUENCY_HZ})` };
  }
  if (hz <= PTOP_DEFAULT_FREQUENCY_HZ) return { hz };
  return {
    hz,
    warning: `${FREQUENCY_VARIABLE}=${hz} is above ptop's default of ${PTOP_DEFAULT_FREQUENCY_HZ} Hz: every listed workload pays for it (measured target slowdown on a CPython service 1.05% at 499 Hz and 2% at 999 Hz, against 0.64% at the default; bench/RESULTS.md)`,
  };
}
