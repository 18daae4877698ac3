// A strict JSON reader for files a person writes and we must not misread: it rejects what
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
  ) {
    super(`line ${line}, column ${column}: ${message}`);
  }
}

export const MAX_JSON_DEPTH = 32;

const SIMPLE_ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** Positions (line, column) of object keys, so structural errors can point at the file too. */
export const keyPositions = new WeakMap<JsonObject, Map<string, { line: number; column: number }>>();

export function parseStrictJson(text: string, maxDepth = MAX_JSON_DEPTH): JsonValue {
  let i = 0;

  // Every key's position is taken, in file order: counting lines on from the last position keeps
  // that linear (rescanning from the start made a 1 MiB list of many keys take tens of seconds).
  const seen = { at: 0, line: 1, lineStart: 0 };
  function position(at: number): { line: number; column: number } {
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

  function fail(message: string, at = i): never {
    const p = position(at);
    throw new JsonSyntaxError(message, p.line, p.column);
  }

  function describe(at: number): string {
    if (at >= text.length) return "end of file";
    const c = text.charCodeAt(at);
    if (c < 0x20 || c === 0x7f) return `control character U+${c.toString(16).padStart(4, "0").toUpperCase()}`;
    return `"${String.fromCodePoint(text.codePointAt(at) ?? c)}"`;
  }

  function skipWhitespace(): void {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  }

  function value(depth: number): JsonValue {
    skipWhitespace();
    const c = text[i];
    if (c === "{") return object(depth + 1);
    if (c === "[") return array(depth + 1);
    if (c === '"') return string();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return number();
    for (const [word, v] of [["true", true], ["false", false], ["null", null]] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    if (c === "/") fail("comments are not JSON");
    return fail(`unexpected ${describe(i)}, expected a value`);
  }

  function object(depth: number): JsonObject {
    if (depth > maxDepth) fail(`nesting deeper than ${maxDepth} levels`);
    i++; // {
    const out = Object.create(null) as JsonObject;
    const positions = new Map<string, { line: number; column: number }>();
    keyPositions.set(out, positions);
    items("}", () => {
      skipWhitespace();
      if (text[i] !== '"') fail(`unexpected ${describe(i)}, expected a key in double quotes`);
      const keyAt = i;
      const key = string();
      if (positions.has(key)) fail(`key ${JSON.stringify(key)} appears twice in the same object`, keyAt);
      positions.set(key, position(keyAt));
      skipWhitespace();
      if (text[i] !== ":") fail(`unexpected ${describe(i)}, expected ":"`);
      i++;
      out[key] = value(depth);
    });
    return out;
  }

  function array(depth: number): JsonValue[] {
    if (depth > maxDepth) fail(`nesting deeper than ${maxDepth} levels`);
    i++; // [
    const out: JsonValue[] = [];
    items("]", () => out.push(value(depth)));
    return out;
  }

  /** The comma-separated members of an object or array, each read by `item`, through `close`. */
  function items(close: "}" | "]", item: () => void): void {
    skipWhitespace();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      item();
      skipWhitespace();
      if (text[i] === ",") {
        i++;
        skipWhitespace();
        if (text[i] === close) fail(`trailing comma before ${close}`);
        continue;
      }
      if (text[i] === close) {
        i++;
        return;
      }
      fail(`unexpected ${describe(i)}, expected "," or "${close}"`);
    }
  }

  function string(): string {
    const start = i;
    i++; // opening quote
    let out = "";
    let chunk = i;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(chunk, i);
        i++;
        return out;
      }
      if (c < 0x20) fail(`${describe(i)} inside a string (escape it)`);
      if (c === 0x5c) {
        out += text.slice(chunk, i);
        const e = text[i + 1];
        if (e !== undefined && e in SIMPLE_ESCAPES) {
          out += SIMPLE_ESCAPES[e];
          i += 2;
        } else if (e === "u") {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("invalid \\u escape");
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
        } else {
          fail(`invalid escape \\${e ?? ""}`);
        }
        chunk = i;
        continue;
      }
      i++;
    }
    return fail("unterminated string", start);
  }

  function number(): number {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail("invalid number");
    i += m[0].length;
    return Number(m[0]);
  }

  const result = value(0);
  skipWhitespace();
  if (i < text.length) fail(`unexpected ${describe(i)} after the end of the document`);
  return result;
}
