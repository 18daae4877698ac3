// A strict JSON reader for what we must not misread — files a person writes (the target list) and
// request bodies a client sends (a capture request): it rejects what
// JSON.parse silently accepts (a repeated key, where the last one would win unseen), bounds the
// nesting depth (hostile files), never touches Object.prototype (keys like "__proto__" are plain
// data), and reports positions as line:column so the message points at the mistake.

export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** Null-prototype object; keyPositions (below) keeps each key's position for later messages. */
export interface JsonObject {
  [key: string]: JsonValue;
}

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
    /** Set when the error is a key repeated in one object: callers name it as the field at fault. */
    readonly repeatedKey?: string,
  ) {
    super(`line ${line}, column ${column}: ${message}`);
  }
}

export const MAX_JSON_DEPTH = 32;

const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** Positions (line, column) of object keys, so structural errors can point at the file too. */
export const keyPositions = new WeakMap<JsonObject, Map<string, { line: number; column: number }>>();

export function parseStrictJson(text: string, maxDepth = MAX_JSON_DEPTH): JsonValue {
  return new StrictJsonReader(text, maxDepth).document();
}

/** One pass over `text`: each grammar rule is a method; `i` is the read position. */
class StrictJsonReader {
  private i = 0;
  // Every key's position is taken, in file order: counting lines on from the last position keeps
  // that linear (rescanning from the start made a 1 MiB list of many keys take tens of seconds).
  private readonly seen = { at: 0, line: 1, lineStart: 0 };

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  /** The whole text: one value and nothing after it but white space. */
  document(): JsonValue {
    const result = this.value(0);
    this.skipWhitespace();
    if (this.i < this.text.length) this.fail(`unexpected ${this.describe(this.i)} after the end of the document`);
    return result;
  }

  private position(at: number): { line: number; column: number } {
    const { seen, text } = this;
    if (at < seen.at) Object.assign(seen, { at: 0, line: 1, lineStart: 0 });
    for (let k = seen.at; k < at && k < text.length; k++) {
      if (text.charCodeAt(k) === 10) {
        seen.line++;
        seen.lineStart = k + 1;
      }
    }
    seen.at = Math.max(seen.at, Math.min(at, text.length));
    return { line: seen.line, column: at - seen.lineStart + 1 };
  }

  private fail(message: string, at = this.i, repeatedKey?: string): never {
    const p = this.position(at);
    throw new JsonSyntaxError(message, p.line, p.column, repeatedKey);
  }

  private describe(at: number): string {
    const text = this.text;
    if (at >= text.length) return "end of file";
    const c = text.charCodeAt(at);
    if (c < 0x20 || c === 0x7f) return `control character U+${c.toString(16).padStart(4, "0").toUpperCase()}`;
    return `"${String.fromCodePoint(text.codePointAt(at) ?? c)}"`;
  }

  private skipWhitespace(): void {
    const text = this.text;
    while (this.i < text.length) {
      const c = text.charCodeAt(this.i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.i++;
      else break;
    }
  }

  private value(depth: number): JsonValue {
    this.skipWhitespace();
    const c = this.text[this.i];
    if (c === "{") return this.object(depth + 1);
    if (c === "[") return this.array(depth + 1);
    if (c === '"') return this.string();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
    for (const [word, v] of [["true", true], ["false", false], ["null", null]] as const) {
      if (this.text.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    if (c === "/") this.fail("comments are not JSON");
    return this.fail(`unexpected ${this.describe(this.i)}, expected a value`);
  }

  private object(depth: number): JsonObject {
    if (depth > this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth} levels`);
    this.i++; // {
    const out = Object.create(null) as JsonObject;
    const positions = new Map<string, { line: number; column: number }>();
    keyPositions.set(out, positions);
    this.items("}", () => {
      this.skipWhitespace();
      if (this.text[this.i] !== '"') this.fail(`unexpected ${this.describe(this.i)}, expected a key in double quotes`);
      const keyAt = this.i;
      const key = this.string();
      if (positions.has(key)) this.fail(`key ${JSON.stringify(key)} appears twice in the same object`, keyAt, key);
      positions.set(key, this.position(keyAt));
      this.skipWhitespace();
      if (this.text[this.i] !== ":") this.fail(`unexpected ${this.describe(this.i)}, expected ":"`);
      this.i++;
      out[key] = this.value(depth);
    });
    return out;
  }

  private array(depth: number): JsonValue[] {
    if (depth > this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth} levels`);
    this.i++; // [
    const out: JsonValue[] = [];
    this.items("]", () => out.push(this.value(depth)));
    return out;
  }

  /** The comma-separated members of an object or array, each read by `item`, through `close`. */
  private items(close: "}" | "]", item: () => void): void {
    this.skipWhitespace();
    if (this.text[this.i] === close) {
      this.i++;
      return;
    }
    for (;;) {
      item();
      this.skipWhitespace();
      if (this.text[this.i] === ",") {
        this.i++;
        this.skipWhitespace();
        if (this.text[this.i] === close) this.fail(`trailing comma before ${close}`);
        continue;
      }
      if (this.text[this.i] === close) {
        this.i++;
        return;
      }
      this.fail(`unexpected ${this.describe(this.i)}, expected "," or "${close}"`);
    }
  }

  private string(): string {
    const text = this.text;
    const start = this.i;
    this.i++; // opening quote
    let out = "";
    let chunk = this.i;
    while (this.i < text.length) {
      const c = text.charCodeAt(this.i);
      if (c === 0x22) {
        out += text.slice(chunk, this.i);
        this.i++;
        return out;
      }
      if (c < 0x20) this.fail(`${this.describe(this.i)} inside a string (escape it)`);
      if (c === 0x5c) {
        out += text.slice(chunk, this.i) + this.escape();
        chunk = this.i;
        continue;
      }
      this.i++;
    }
    return this.fail("unterminated string", start);
  }

  /** The escape at `i` (a backslash), decoded; `i` moves past it. */
  private escape(): string {
    const e = this.text[this.i + 1];
    if (e !== undefined && e in SIMPLE_ESCAPES) {
      this.i += 2;
      return SIMPLE_ESCAPES[e]!;
    }
    if (e === "u") {
      const hex = this.text.slice(this.i + 2, this.i + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail("invalid \\u escape");
      this.i += 6;
      return String.fromCharCode(parseInt(hex, 16));
    }
    return this.fail(`invalid escape \\${e ?? ""}`);
  }

  private number(): number {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.i, this.i + 400));
    if (!m) this.fail("invalid number");
    this.i += m[0].length;
    return Number(m[0]);
  }
}
