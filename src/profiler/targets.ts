// The target list: the only processes the Profiler may ever measure. Strict on purpose — an unknown
// key (even "comment"), an empty list or a "*" workload refuses the boot, because a list that is
// misread is a list that measures the wrong processes. Every problem carries the JSON path of the
// offending element. The list never leaves the machine: callers log its count, never its content.

import { closeSync, constants, fstatSync, openSync, readSync, statSync } from "node:fs";
import { nameProblem } from "../protocol/names.ts";
import { JsonSyntaxError, keyPositions, parseStrictJson, type JsonObject, type JsonValue } from "../protocol/strict-json.ts";

export interface Target {
  workload: string;
  namespace?: string;
}

export interface TargetProblem {
  /** JSON path of the offending element ("$" for the whole file). */
  path: string;
  message: string;
  /** line:column in the file when known. */
  at?: string;
}

export interface TargetList {
  file: string;
  targets: Target[];
  /** Refusals: any of these stops the boot. */
  errors: TargetProblem[];
  /** Reported but harmless (duplicates). */
  warnings: TargetProblem[];
}

// One grammar with ptop's own parser (native/ptop/src/collector/targets.c, which re-reads the list at every
// capture): both accept exactly the same files with the same limits, and the shared corpus in
// test/fixtures/targets/{accept,refuse} runs through both. Change a rule here (or in
// protocol/names.ts, the names' grammar the capture API shares), change it there.

/** A target list is a handful of lines; anything bigger is not one. Bounded before reading. */
export const MAX_TARGETS_FILE_BYTES = 1024 * 1024;
export const MAX_TARGETS = 10_000;

const TOP_KEYS = new Set(["targets"]);
const TARGET_KEYS = new Set(["workload", "namespace"]);

export function formatProblem(file: string, p: TargetProblem): string {
  return `${file}: ${p.path}${p.at ? ` (${p.at})` : ""}: ${p.message}`;
}

export function readTargetsFile(file: string): TargetList {
  const result: TargetList = { file, targets: [], errors: [], warnings: [] };
  const refuse = (message: string, path = "$") => {
    result.errors.push({ path, message });
    return result;
  };
  let text: string;
  try {
    text = readBounded(file);
  } catch (err) {
    return refuse(describeReadError(err));
  }
  if (text.charCodeAt(0) === 0xfeff) return refuse("the file starts with a byte-order mark (BOM); save it as UTF-8 without BOM");
  if (text.trim() === "") return refuse('the file is empty; it must be a JSON object like {"targets": [{"workload": "api"}]}');
  let doc: JsonValue;
  try {
    doc = parseStrictJson(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) {
      result.errors.push({ path: "$", at: `line ${err.line}, column ${err.column}`, message: `invalid JSON: ${err.message.replace(/^line \d+, column \d+: /, "")}` });
      return result;
    }
    throw err;
  }
  validateDocument(doc, result);
  return result;
}

/** Validates an already-parsed document (exported for tests and for callers holding JSON). */
export function validateDocument(doc: JsonValue, result: TargetList): void {
  if (!isObject(doc)) {
    result.errors.push({ path: "$", message: `must be a JSON object with a "targets" array, not ${kind(doc)}` });
    return;
  }
  for (const key of Object.keys(doc)) {
    if (!TOP_KEYS.has(key)) result.errors.push({ path: childPath("$", key), at: at(doc, key), message: unknownKey(key, TOP_KEYS) });
  }
  if (!Object.hasOwn(doc, "targets")) {
    result.errors.push({ path: "$.targets", message: 'is missing: list the workloads to measure, e.g. {"targets": [{"workload": "api"}]}; there is no default meaning every process' });
    return;
  }
  const list = doc.targets;
  if (!Array.isArray(list)) {
    result.errors.push({ path: "$.targets", at: at(doc, "targets"), message: `must be an array of target objects, not ${kind(list)}` });
    return;
  }
  if (list.length === 0) {
    result.errors.push({ path: "$.targets", at: at(doc, "targets"), message: "is empty: list at least one workload; there is no default meaning every process" });
    return;
  }
  if (list.length > MAX_TARGETS) {
    result.errors.push({ path: "$.targets", message: `has ${list.length} entries, more than the ${MAX_TARGETS} allowed` });
    return;
  }
  const seen = new Map<string, string>();
  list.forEach((entry, index) => {
    const path = `$.targets[${index}]`;
    const target = validateTarget(entry, path, result);
    if (!target) return;
    result.targets.push(target);
    const identity = JSON.stringify([target.workload, target.namespace ?? null]);
    const first = seen.get(identity);
    if (first) {
      result.warnings.push({ path, message: `duplicate of ${first} (workload ${JSON.stringify(target.workload)}${target.namespace ? `, namespace ${JSON.stringify(target.namespace)}` : ""})` });
    } else {
      seen.set(identity, path);
    }
  });
  if (result.errors.length > 0) result.targets = [];
}

function validateTarget(entry: JsonValue, path: string, result: TargetList): Target | undefined {
  if (!isObject(entry)) {
    result.errors.push({ path, message: `must be an object like {"workload": "api"}, not ${kind(entry)}` });
    return undefined;
  }
  const before = result.errors.length;
  for (const key of Object.keys(entry)) {
    if (!TARGET_KEYS.has(key)) result.errors.push({ path: childPath(path, key), at: at(entry, key), message: unknownKey(key, TARGET_KEYS) });
  }
  const workload = entry.workload;
  if (!Object.hasOwn(entry, "workload")) {
    result.errors.push({ path: `${path}.workload`, message: "is missing: the process name to measure" });
  } else if (typeof workload !== "string") {
    result.errors.push({ path: `${path}.workload`, at: at(entry, "workload"), message: `must be a string (process name), not ${kind(workload)}` });
  } else {
    const problem = nameProblem(workload, "workload");
    if (problem) result.errors.push({ path: `${path}.workload`, at: at(entry, "workload"), message: problem });
  }
  const namespace = entry.namespace;
  if (Object.hasOwn(entry, "namespace")) {
    if (typeof namespace !== "string") {
      result.errors.push({ path: `${path}.namespace`, at: at(entry, "namespace"), message: `must be a string, not ${kind(namespace)}` });
    } else {
      let problem = nameProblem(namespace, "namespace");
      // A Kubernetes namespace is a DNS-1123 label; anything else could never match a process.
      if (!problem && !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(namespace)) {
        problem = "is not a Kubernetes namespace name (lower-case letters, digits and '-', at most 63, e.g. \"payments\")";
      }
      if (problem) result.errors.push({ path: `${path}.namespace`, at: at(entry, "namespace"), message: problem });
    }
  }
  if (result.errors.length > before) return undefined;
  const target: Target = { workload: workload as string };
  if (typeof namespace === "string") target.namespace = namespace;
  return target;
}

function readBounded(file: string): string {
  // stat first: opening a FIFO would block, a directory would read nothing useful.
  const st = statSync(file);
  if (st.isDirectory()) throw Object.assign(new Error("is a directory, not a file"), { code: "EISDIR" });
  if (!st.isFile()) throw Object.assign(new Error("is not a regular file"), { code: "ENOTREG" });
  if (st.size > MAX_TARGETS_FILE_BYTES) throw Object.assign(new Error(""), { code: "ETOOBIG", size: st.size });
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw Object.assign(new Error("is not a regular file"), { code: "ENOTREG" });
    // Read at most one byte past the cap: a file that grows after stat is still bounded.
    const buf = Buffer.alloc(MAX_TARGETS_FILE_BYTES + 1);
    let n = 0;
    for (;;) {
      const r = readSync(fd, buf, n, buf.length - n, null);
      if (r === 0) break;
      n += r;
      if (n === buf.length) throw Object.assign(new Error(""), { code: "ETOOBIG", size: n });
    }
    const bytes = buf.subarray(0, n);
    const bad = firstInvalidUtf8(bytes);
    if (bad !== -1) throw Object.assign(new Error(""), { code: "EUTF8", offset: bad });
    return bytes.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

function describeReadError(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { size?: number; offset?: number };
  switch (e.code) {
    case "ENOENT":
      return "file not found; mount the target list read-only at this path (RUNNER_PROFILE_TARGETS_FILE)";
    case "EACCES":
    case "EPERM":
      return "cannot be read (permission denied); make it readable by the Profiler's user";
    case "EISDIR":
      return "is a directory, not a file";
    case "ENOTREG":
      return "is not a regular file";
    case "ENOTDIR":
      return "a component of the path is not a directory";
    case "ETOOBIG":
      return `is larger than ${MAX_TARGETS_FILE_BYTES} bytes; a target list is a short JSON file`;
    case "EUTF8":
      return `is not valid UTF-8 (first bad byte at offset ${e.offset})`;
    default:
      return `cannot be read: ${e.code ?? e.message}`;
  }
}

/** Byte offset of the first invalid UTF-8 sequence, or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) [need, min] = [1, 0x80];
    else if (b >= 0xe0 && b <= 0xef) [need, min] = [2, 0x800];
    else if (b >= 0xf0 && b <= 0xf4) [need, min] = [3, 0x10000];
    else return i;
    if (i + need >= bytes.length) return i; // truncated sequence at end of file
    let cp = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k]!;
      if ((c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function kind(v: JsonValue | undefined): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  if (typeof v === "string") return `a string (${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)})`;
  return `a ${typeof v} (${String(v)})`;
}

function unknownKey(key: string, allowed: Set<string>): string {
  const shown = JSON.stringify(key.length > 60 ? `${key.slice(0, 60)}…` : key);
  const hint = key === "comment" || key.startsWith("_") || key.startsWith("//") ? " (comments are not allowed either)" : "";
  return `unknown key ${shown}${hint}; allowed: ${[...allowed].map((k) => `"${k}"`).join(", ")}`;
}

function childPath(parent: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) && key !== "__proto__" ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

function at(obj: JsonObject, key: string): string | undefined {
  const p = keyPositions.get(obj)?.get(key);
  return p ? `line ${p.line}, column ${p.column}` : undefined;
}
