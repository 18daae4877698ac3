// What a CLI prints from the store was written by others: a version or env a pipeline sent, a
// failure reason or collector note a Profiler reported about a target it does not control. On a
// terminal, ESC, CSI, CR or BEL in such text rewrite the screen (clear a line, move the cursor,
// retitle the window, fake "status OK"), and bidirectional overrides reorder what is read. Every
// CLI prints stored text through these, so the operator sees the characters, escaped, not their
// effect. --json output stays JSON: JSON.stringify already escapes C0; the rest is escaped as \uXXXX.

// C0, DEL, C1 (U+0080–U+009F: 8-bit CSI and OSC among them), bidi marks, embeddings, overrides
// and isolates, line and paragraph separators.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// The same minus C0, which JSON.stringify has escaped already.
const UNSAFE_IN_JSON = /[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const hex = (c: string, width: number) => c.charCodeAt(0).toString(16).padStart(width, "0");

/** `text` with every character that acts on a terminal written out: "\x1b", "\u202e". */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => (c.charCodeAt(0) <= 0xff ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`));
}

/** A template whose interpolated values are printed terminal-safe; its own text (tabs) is kept. */
export function safe(strings: TemplateStringsArray, ...values: unknown[]): string {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += terminalSafe(String(v)) + strings[i + 1]!;
  });
  return out;
}

/** JSON (pretty unless `indent` is 0) that carries the same values and has nothing left that acts on a terminal. */
export function terminalJson(value: unknown, indent = 2): string {
  return JSON.stringify(value, null, indent || undefined).replace(UNSAFE_IN_JSON, (c) => `\\u${hex(c, 4)}`);
}
