// How witness writes numbers for a reader, shared by the CLI table, the HTML page and the verdict
// sentence (kept apart from the renderers so the verdict does not import a renderer).

/** A relative change as a signed percentage: 0.123 → "+12.3%", -0.04 → "-4.0%", and "0.0%" for anything that rounds to zero (never "-0.0%"). */
export const signedPercent = (x: number) => {
  const s = (x * 100).toFixed(1);
  return Number(s) === 0 ? "0.0%" : `${x > 0 ? "+" : ""}${s}%`;
};

/** A count with its noun: count(1, "test", "tests") → "1 test". */
export const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
