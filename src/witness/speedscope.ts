// speedscope JSON (https://www.speedscope.app/file-format-schema.json): one "sampled" profile per
// axis, frames shared. Each distinct stack is one weighted sample, so the file stays small.

import type { Capture } from "./model.ts";

const UNIT: Record<string, string> = { samples: "none", count: "none", calls: "none", nanoseconds: "nanoseconds", bytes: "bytes" };

export function toSpeedscope(c: Capture, axes: string[] = Object.keys(c.axes)): string {
  const frames: { name: string; file?: string }[] = [];
  const index = new Map<string, number>();
  const profiles = axes.map((a) => {
    const p = c.axes[a];
    if (!p) throw new Error(`axis "${a}" is not in this capture`);
    const map = p.frames.map((f) => {
      const key = f.module ? `${f.name}\u0000${f.module}` : f.name;
      let i = index.get(key);
      if (i === undefined) {
        i = frames.length;
        frames.push(f.module ? { name: f.name, file: f.module } : { name: f.name });
        index.set(key, i);
      }
      return i;
    });
    const samples: number[][] = [];
    const weights: number[] = [];
    let total = 0;
    for (const s of p.stacks) {
      if (s.value <= 0 || s.frames.length === 0) continue;
      samples.push(s.frames.map((k) => map[k]!));
      weights.push(s.value);
      total += s.value;
    }
    return { type: "sampled", name: `${c.meta.workload ?? c.meta.name ?? "capture"} ${a}`, unit: UNIT[p.unit] ?? "none", startValue: 0, endValue: total, samples, weights };
  });
  return JSON.stringify({
    $schema: "https://www.speedscope.app/file-format-schema.json",
    name: c.meta.workload ?? c.meta.name ?? "capture",
    exporter: "runner witness",
    activeProfileIndex: 0,
    shared: { frames },
    profiles,
  });
}
