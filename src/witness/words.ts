// How witness writes numbers for a reader, shared by the CLI table, the HTML page and the verdict
// sentence (kept apart from the renderers so the verdict does not import a renderer).

/** A relative change as a signed percentage: 0.123 → "+12.3%". */
export const signedPercent = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`;

/** A count with its noun: count(1, "test", "tests") → "1 test". */
export const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
