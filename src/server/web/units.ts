// Absolute values beside shares: what an axis' unit means per capture and per second of
// measured time — samples and CPU-seconds per second (cpu), nanoseconds blocked (offcpu),
// calls per second (syscalls), MiB allocated and MiB per second (alloc).
// No witness import: the browser script bundles this file (assets/app/frame-text.ts).

export interface AxisScale {
  unit: string;
  /** Mean axis total per capture (samples, ns or calls). */
  total: number;
  /** Mean measured seconds per capture; null when a capture has none. */
  seconds: number | null;
  /** Nanoseconds one cpu sample stands for, when known. */
  periodNs: number | null;
}

const num = (x: number) => (Math.abs(x) >= 100 ? Math.round(x).toLocaleString("en-US") : Math.abs(x) >= 1 ? x.toFixed(1) : x.toPrecision(2));

/** "1,234 samples · 0.41 CPU-s/s" for a value in the axis unit (per capture). */
export function absolute(value: number, s: Pick<AxisScale, "unit" | "seconds" | "periodNs">): string {
  const parts: string[] = [];
  if (s.unit === "nanoseconds") parts.push(`${num(value / 1e6)} ms blocked`);
  else if (s.unit === "bytes") parts.push(`${num(value / 1048576)} MiB`);
  else parts.push(`${num(value)} ${s.unit}`);
  if (s.seconds) {
    if (s.unit === "samples" && s.periodNs) parts.push(`${num((value * s.periodNs) / 1e9 / s.seconds)} CPU-s/s`);
    else if (s.unit === "samples") parts.push(`${num(value / s.seconds)} samples/s`);
    else if (s.unit === "nanoseconds") parts.push(`${num(value / 1e9 / s.seconds)} s blocked/s`);
    else if (s.unit === "bytes") parts.push(`${num(value / 1048576 / s.seconds)} MiB/s`);
    else parts.push(`${num(value / s.seconds)} ${s.unit}/s`);
  }
  return parts.join(" · ");
}
