// Folded stacks (Brendan Gregg's format): one line per distinct stack, `root;…;leaf COUNT`.
// A folded file holds one axis; which one is not in the format, so the reader takes it as a hint.

import { AxisBuilder, type AxisProfile, type AxisUnit, type Capture } from "./model.ts";

export class FoldedError extends Error {}

const UNIT: Record<string, AxisUnit> = { cpu: "samples", offcpu: "nanoseconds", syscalls: "calls" };

export function parseFolded(text: string, axis = "cpu", name?: string): Capture {
  const b = new AxisBuilder(axis, UNIT[axis] ?? "count");
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trimEnd();
    if (line === "" || line.startsWith("#")) continue;
    const sp = line.lastIndexOf(" ");
    const count = sp > 0 ? Number(line.slice(sp + 1)) : NaN;
    if (!Number.isFinite(count) || count < 0) throw new FoldedError(`line ${i + 1}: expected "frame;frame;leaf COUNT"`);
    const names = line.slice(0, sp).split(";");
    if (names.some((n) => n === "")) throw new FoldedError(`line ${i + 1}: empty frame name`);
    b.add(
      names.map((n) => b.frame({ name: n })),
      count,
    );
  }
  const c: Capture = { meta: { source: "folded", partial: false }, axes: { [axis]: b.profile }, missing: [] };
  if (name !== undefined) c.meta.name = name;
  return c;
}

/** Folded lines for one axis, root first, sorted for stable output. Frame names cannot contain ';' or '\n'. */
export function toFolded(p: AxisProfile): string {
  const safe = p.frames.map((f) => f.name.replace(/[;\n]/g, "_"));
  const lines = p.stacks
    .filter((s) => s.value > 0 && s.frames.length > 0)
    .map((s) => `${s.frames.map((i) => safe[i]).join(";")} ${s.value}`);
  lines.sort();
  return lines.length ? lines.join("\n") + "\n" : "";
}

/** Guesses the axis of a folded file from its name, e.g. `api.offcpu.folded` → offcpu. */
export function axisFromName(name: string | undefined): string {
  const m = name?.match(/(?:^|[./_-])(cpu|offcpu|syscalls)(?:[./_-]|$)/);
  return m?.[1] ?? "cpu";
}
