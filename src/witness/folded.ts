// Folded stacks (Brendan Gregg's format): one line per distinct stack, `root;…;leaf COUNT`.
// A folded file holds one axis; which one is not in the format, so the reader takes it as a hint.

import { AxisTotalError, MAX_AXIS_TOTAL, type AxisProfile, AXIS_UNITS, type Capture } from "./model.ts";
import { LineSplitter } from "./read-lines.ts";
import { NameTable } from "./name-table.ts";
import { grow } from "./grow.ts";
import { StackSet } from "./stack-set.ts";

export class FoldedError extends Error {}

// FNV-1a over the stack's UTF-16 code units, which for ASCII are its bytes: a stack hashes the
// same whether it was read as text or in place as bytes.
const HASH_SEED = 0x811c9dc5;
const HASH_PRIME = 0x01000193;

/** Number() of the ASCII text buf[start .. end): plain digits directly, anything else through Number. */
function asciiNumber(buf: Uint8Array, start: number, end: number): number {
  if (end - start <= 15) {
    let v = 0;
    let k = start;
    for (; k < end; k++) {
      const d = buf[k]! - 48;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
    }
    if (k === end) return v;
  }
  let text = "";
  for (let k = start; k < end; k++) text += String.fromCharCode(buf[k]!);
  return Number(text);
}

/**
 * Folded lines merged by stack, in order of first appearance. Memory follows what must be kept,
 * the distinct stacks, not the lines read, so `witness fold` streams a folded file of any length
 * through it: each frame name is kept once (NameTable) and each distinct stack as packed name ids
 * (StackSet) plus its count (8 bytes). A string per stack, sliced from the decoded chunk, had also
 * kept that whole chunk alive.
 */
export class FoldedCounts {
  private readonly names = new NameTable();
  private readonly stacks = new StackSet();
  private counts = new Float64Array(1 << 10);
  private scratch = new Uint32Array(256);
  private total = 0;
  private lineNo = 0;
  private readonly decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  /** The stack being looked up, as text or as bytes (isPending compares against it). */
  private pendingText: string | null = null;
  private pendingBytes: Uint8Array = new Uint8Array(0);
  private pendingStart = 0;
  private pendingEnd = 0;

  constructor(readonly axis = "cpu") {}

  /** One line of the file (line numbers count every call). */
  line(raw: string): void {
    this.textLine(raw, ++this.lineNo);
  }

  /**
   * One line of the file as UTF-8 bytes `buf[start .. end)`, the same as line() of its text. An
   * ASCII line (nearly all of them) is read in place: a stack seen before makes no string at all.
   * Any other byte sends the line through its decoded text, so that invalid UTF-8 merges exactly
   * as TextDecoder's replacement characters make it.
   */
  lineBytes(buf: Uint8Array, start: number, end: number): void {
    const lineNo = ++this.lineNo;
    for (let k = start; k < end; k++) if (buf[k]! >= 0x80) return this.textLine(this.decoder.decode(buf.subarray(start, end)), lineNo);
    // trimEnd(): the ASCII white space is \t \n \v \f \r and space.
    while (end > start && (buf[end - 1] === 32 || (buf[end - 1]! >= 9 && buf[end - 1]! <= 13))) end--;
    if (end === start || buf[start] === 35 /* # */) return;
    const sp = buf.lastIndexOf(32, end - 1);
    if (sp <= start) throw badLine(lineNo);
    const count = asciiNumber(buf, sp + 1, end);
    if (!Number.isFinite(count) || count < 0) throw badLine(lineNo);
    if (buf[start] === 59 || buf[sp - 1] === 59) throw emptyFrame(lineNo);
    let h = HASH_SEED;
    for (let k = start; k < sp; k++) {
      const c = buf[k]!;
      if (c === 59 && buf[k + 1] === 59) throw emptyFrame(lineNo);
      h = Math.imul(h ^ c, HASH_PRIME);
    }
    this.pendingBytes = buf;
    this.pendingStart = start;
    this.pendingEnd = sp;
    this.add(count, h ^ (h >>> 15), lineNo);
  }

  private textLine(raw: string, lineNo: number): void {
    const line = raw.trimEnd();
    if (line === "" || line.startsWith("#")) return;
    const sp = line.lastIndexOf(" ");
    const count = sp > 0 ? Number(line.slice(sp + 1)) : NaN;
    if (!Number.isFinite(count) || count < 0) throw badLine(lineNo);
    const stack = line.slice(0, sp);
    if (stack.startsWith(";") || stack.endsWith(";") || stack.includes(";;")) throw emptyFrame(lineNo);
    let h = HASH_SEED;
    for (let k = 0; k < sp; k++) h = Math.imul(h ^ stack.charCodeAt(k), HASH_PRIME);
    this.pendingText = stack;
    try {
      this.add(count, h ^ (h >>> 15), lineNo);
    } finally {
      this.pendingText = null;
    }
  }

  /** Adds `count` to the pending stack, whose text hashes to `hash` (the same for text and bytes). */
  private add(count: number, hash: number, lineNo: number): void {
    this.total += count;
    if (!(this.total <= MAX_AXIS_TOTAL)) throw new FoldedError(`line ${lineNo}: ${new AxisTotalError(this.axis).message}`);
    let at = this.stacks.find(hash, this.isPending);
    if (at < 0) {
      // New: its names, each kept once.
      const text = this.pendingText;
      let len = 0;
      const push = (id: number) => {
        if (len === this.scratch.length) this.scratch = grow(this.scratch, len * 2);
        this.scratch[len++] = id;
      };
      if (text === null) {
        const buf = this.pendingBytes;
        const end = this.pendingEnd;
        for (let from = this.pendingStart; from <= end; ) {
          let to = buf.indexOf(59, from);
          if (to < 0 || to > end) to = end;
          push(this.names.internBytes(buf, from, to));
          from = to + 1;
        }
      } else for (const name of text.split(";")) push(this.names.intern(name));
      at = this.stacks.add(this.scratch, len, hash);
      if (at >= this.counts.length) this.counts = grow(this.counts, this.counts.length * 2);
    }
    this.counts[at] = this.counts[at]! + count;
  }

  /** Whether stack i is the pending stack (its names joined by ";"), compared in place. */
  private readonly isPending = (i: number): boolean => {
    const len = this.stacks.length(i);
    const text = this.pendingText;
    if (text !== null) {
      let pos = 0;
      for (let k = 0; k < len; k++) {
        if (k > 0 && text.charCodeAt(pos++) !== 59 /* ; */) return false;
        const name = this.names.names[this.stacks.frame(i, k)]!;
        if (!text.startsWith(name, pos)) return false;
        pos += name.length;
      }
      return pos === text.length;
    }
    const buf = this.pendingBytes;
    const end = this.pendingEnd;
    let pos = this.pendingStart;
    for (let k = 0; k < len; k++) {
      if (k > 0 && buf[pos++] !== 59) return false;
      pos = this.names.matchesAt(this.stacks.frame(i, k), buf, pos, end);
      if (pos < 0) return false;
    }
    return pos === end;
  };

  /** Stack i's line as it is written out: `root;…;leaf COUNT`. */
  private lineOf(i: number): string {
    const { names } = this.names;
    const len = this.stacks.length(i);
    const parts = new Array<string>(len);
    for (let k = 0; k < len; k++) parts[k] = names[this.stacks.frame(i, k)]!;
    return `${parts.join(";")} ${this.counts[i]}`;
  }

  /** Stack indexes with a count above 0, in the order of their lines (toFolded's order). */
  private sortedStacks(): number[] {
    const { stacks } = this;
    const { names } = this.names;
    // A plain array: JSC sorts it with a comparator many times faster than a typed array.
    const order: number[] = [];
    for (let i = 0; i < stacks.size; i++) if (this.counts[i]! > 0) order.push(i);
    // Compared frame by frame, as the lines compare: up to the first frame that differs the lines
    // are equal; there the two names decide, unless one name is a prefix of the other ("f1" and
    // "f12"), when what follows the shorter name (";" or " ") and the next character of the longer
    // one do; when both are " " (a name with a space), the two whole lines are compared. A stack
    // that is a whole-frame prefix of the other is followed by " COUNT" where the other goes on
    // with ";", and " " sorts before ";": the shorter stack comes first.
    // Names ranked once; the names that start with the name of rank r have the ranks just after
    // it, up to within[r]. So the comparator needs no string operation but for those rare lines.
    const byName = Array.from(names.keys()).sort((a, b) => (names[a]! < names[b]! ? -1 : 1));
    const rank = new Uint32Array(names.length);
    byName.forEach((id, r) => (rank[id] = r));
    const within = new Uint32Array(names.length);
    for (let r = names.length - 1; r >= 0; r--) {
      let j = r + 1;
      while (j < names.length && names[byName[j]!]!.startsWith(names[byName[r]!]!)) j = within[j]! + 1;
      within[r] = j - 1;
    }
    const compare = (x: number, y: number): number => {
      const lx = stacks.length(x);
      const ly = stacks.length(y);
      const common = Math.min(lx, ly);
      for (let k = 0; k < common; k++) {
        const a = stacks.frame(x, k);
        const b = stacks.frame(y, k);
        if (a === b) continue;
        const ra = rank[a]!;
        const rb = rank[b]!;
        if (ra < rb ? rb > within[ra]! : ra > within[rb]!) return ra < rb ? -1 : 1;
        // One name is a prefix of the other: what follows the shorter one (";" if its stack goes
        // on, else " ") meets the next character of the longer one.
        const [short, long, shortMore] = ra < rb ? [names[a]!, names[b]!, k + 1 < lx] : [names[b]!, names[a]!, k + 1 < ly];
        const afterShort = shortMore ? 59 : 32;
        const afterInLong = long.charCodeAt(short.length);
        if (afterShort !== afterInLong) return (afterShort < afterInLong) === ra < rb ? -1 : 1;
        return this.lineOf(x) < this.lineOf(y) ? -1 : 1; // both " ": a name with a space in it
      }
      return lx - ly; // distinct stacks: the lengths differ here
    };
    return order.sort(compare);
  }

  /**
   * The folded output of these lines (merged, sorted as whole lines, zero counts dropped: exactly
   * toFolded's text) as UTF-8 in pieces of about `piece` bytes, written from the packed names:
   * no string per line.
   */
  *sortedOutput(piece = 1 << 20): Generator<Uint8Array> {
    let out = new Uint8Array(piece + 64);
    let at = 0;
    for (const i of this.sortedStacks()) {
      const len = this.stacks.length(i);
      const value = this.counts[i]!;
      // String(value), which a whole number up to 2^53 is digit for digit, written without one.
      let digits = 0;
      if (Number.isSafeInteger(value)) for (digits = 1; digits < 16 && 10 ** digits <= value; ) digits++;
      const count = digits > 0 ? "" : String(value);
      let need = len + digits + count.length + 1;
      for (let k = 0; k < len; k++) need += this.names.byteLength(this.stacks.frame(i, k));
      if (at + need > out.length) {
        if (at > 0) yield out.subarray(0, at);
        out = new Uint8Array(Math.max(piece + 64, need));
        at = 0;
      }
      for (let k = 0; k < len; k++) {
        if (k > 0) out[at++] = 59;
        at = this.names.copyTo(this.stacks.frame(i, k), out, at);
      }
      out[at++] = 32;
      if (digits > 0) {
        let v = value;
        for (let k = digits - 1; k >= 0; k--) {
          out[at + k] = 48 + (v % 10);
          v = Math.floor(v / 10);
        }
        at += digits;
      } else for (let k = 0; k < count.length; k++) out[at++] = count.charCodeAt(k);
      out[at++] = 10;
    }
    if (at > 0) yield out.subarray(0, at);
  }

  /** These stacks as a Capture, in order of first appearance (frames too, as AxisBuilder would). */
  capture(name?: string): Capture {
    const profile: AxisProfile = { axis: this.axis, unit: AXIS_UNITS[this.axis] ?? "count", frames: this.names.names.map((n) => ({ name: n })), stacks: [] };
    for (let i = 0; i < this.stacks.size; i++) profile.stacks.push({ frames: this.stacks.toArray(i), value: this.counts[i]! });
    const c: Capture = { meta: { source: "folded", partial: false }, axes: { [this.axis]: profile }, missing: [] };
    if (name !== undefined) c.meta.name = name;
    return c;
  }
}

const badLine = (lineNo: number) => new FoldedError(`line ${lineNo}: expected "frame;frame;leaf COUNT"`);
const emptyFrame = (lineNo: number) => new FoldedError(`line ${lineNo}: empty frame name`);

export function parseFolded(text: string, axis = "cpu", name?: string): Capture {
  const f = new FoldedCounts(axis);
  // A line at a time, not split() whole: the stacks kept are the merged ones, not every line.
  let start = 0;
  for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
    f.line(text.slice(start, nl));
    start = nl + 1;
  }
  f.line(text.slice(start));
  return f.capture(name);
}

/** parseFolded of UTF-8 bytes, read in place (the same Capture as parseFolded of their text). */
export function parseFoldedBytes(bytes: Uint8Array, axis = "cpu", name?: string): Capture {
  const f = new FoldedCounts(axis);
  const lines = new LineSplitter((buf, start, end) => f.lineBytes(buf, start, end), Infinity);
  lines.push(bytes);
  lines.end();
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
