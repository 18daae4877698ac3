// How every part of runner states a capture's instrumentation (REFERENCE: "fully instrumented" or
// "N of M probes"): the server's records, the capture screen, witness reports and the profiler's
// boot line all call this, so the phrase has one home.

/** Every requested probe attached and none reported missing. */
export function isFullyInstrumented(attached: number, requested: number, missing: number): boolean {
  return missing === 0 && attached === requested;
}

/** "fully instrumented" or "N of M probes". */
export function probeCoverage(attached: number, requested: number, missing: number): string {
  return isFullyInstrumented(attached, requested, missing) ? "fully instrumented" : `${attached} of ${requested} probes`;
}
