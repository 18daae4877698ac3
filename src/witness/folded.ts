// Folded stacks (Brendan Gregg's format): one line per distinct stack, `root;…;leaf COUNT`.
// A folded file holds one axis; which one is not in the format, so the reader takes it as a hint.

import { AxisBuilder, AxisTotalError, MAX_AXIS_TOTAL, type AxisProfile, type AxisUnit, type Capture } from "./model.ts";

export class FoldedError extends Error {}

const UNIT: Record<string, AxisUnit> = { cpu: "samples", offcpu: "nanoseconds", syscalls: "calls", locks: "nanoseconds", alloc: "bytes" };

/**
 * Folded lines merged by stack: the stack text (`root;…;leaf`) and its summed count, in order of
 * first appearance. Memory grows with the distinct stacks, not with the lines read, so
 * `witness fold` can stream a folded file of any length through it.
 */
export class FoldedCounts {
  readonly counts = new Map<string, number>();
  private total = 0;
  private lineNo = 0;

  constructor(readonly axis = "cpu") {}

  /** One line of the file (line numbers count every call). */
  line(raw: string): void {
    const lineNo = ++this.lineNo;
    const line = raw.trimEnd();
    if (line === "" || line.startsWith("#")) return;
    const sp = line.lastIndexOf(" ");
    const count = sp > 0 ? Number(line.slice(sp + 1)) : NaN;
    if (!Number.isFinite(count) || count < 0) throw new FoldedError(`line ${lineNo}: expected "frame;frame;leaf COUNT"`);
    const stack = line.slice(0, sp);
    if (stack.startsWith(";") || stack.endsWith(";") || stack.includes(";;")) throw new FoldedError(`line ${lineNo}: empty frame name`);
    this.total += count;
    if (!(this.total <= MAX_AXIS_TOTAL)) throw new FoldedError(`line ${lineNo}: ${new AxisTotalError(this.axis).message}`);
    this.counts.set(stack, (this.counts.get(stack) ?? 0) + count);
  }

  /**
   * The folded output of these lines in toFolded's order (merged, sorted as whole lines, zero
   * counts dropped), made a line at a time: the stacks are sorted, not a second copy as lines.
   */
  *sortedLines(): Generator<string> {
    const line = (stack: string) => `${stack} ${this.counts.get(stack)}`;
    const stacks: string[] = [];
    for (const [stack, count] of this.counts) if (count > 0) stacks.push(stack);
    // Stacks sort like their lines unless one is a prefix of the other ("a;b" and "a;b c"): then
    // the " COUNT" decides, so those few pairs compare as whole lines.
    stacks.sort((x, y) => {
      if (x === y) return 0;
      const lt = x < y;
      if (lt ? y.startsWith(x) : x.startsWith(y)) return line(x) < line(y) ? -1 : 1;
      return lt ? -1 : 1;
    });
    for (const stack of stacks) yield line(stack);
  }

  capture(name?: string): Capture {
    const b = new AxisBuilder(this.axis, UNIT[this.axis] ?? "count");
    for (const [stack, count] of this.counts) {
      b.add(
        stack.split(";").map((n) => b.frame({ name: n })),
        count,
      );
    }
    const c: Capture = { meta: { source: "folded", partial: false }, axes: { [this.axis]: b.profile }, missing: [] };
    if (name !== undefined) c.meta.name = name;
    return c;
  }
}

export function parseFolded(text: string, axis = "cpu", name?: string): Capture {
  const f = new FoldedCounts(axis);
  for (const line of text.split("\n")) f.line(line);
  return f.capture(name);
}

/** Folded lines for one axis, root first, sorted for stable output. Frame names cannot contain ';' or '\n'. */
export function toFolded(p: AxisProfile): string {
  const lines = foldedLines(p);
  return lines.length ? lines.join("\n") + "\n" : "";
}

/** toFolded's lines, without the newlines, for writing a piece at a time. */
export function foldedLines(p: AxisProfile): string[] {
  const safe = p.frames.map((f) => f.name.replace(/[;\n]/g, "_"));
  const lines = p.stacks
    .filter((s) => s.value > 0 && s.frames.length > 0)
    .map((s) => `${s.frames.map((i) => safe[i]).join(";")} ${s.value}`);
  return lines.sort();
}

/** Guesses the axis of a folded file from its name, e.g. `api.offcpu.folded` → offcpu. */
export function axisFromName(name: string | undefined): string {
  const m = name?.match(/(?:^|[./_-])(cpu|offcpu|syscalls|locks|alloc)(?:[./_-]|$)/);
  return m?.[1] ?? "cpu";
}
