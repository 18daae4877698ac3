// Functions longer than the team's limit (100 lines) in TypeScript and C sources:
// `bun scripts/function-lengths.ts [DIR…]` prints each as `path:line name: N lines` and exits 1
// when there is one (DIRs default to src and native/ptop/src). test/unit/function-lengths.test.ts
// runs it on the repository in `npm test`.
//
// A function's lines run from the line its declaration starts on to the line of its closing brace.
// TypeScript is parsed by the TypeScript compiler itself (its API over the tsgo binary that tsc
// runs), so every function-like node counts: declarations, methods, constructors, accessors,
// function expressions and arrow functions with a block or an expression body. C has no such
// parser installed, so a scanner blanks comments, string and character literals and preprocessor
// lines, then reads each top-level `{` that follows a `)` as a function body (at file scope only a
// definition, or a macro that expands to one such as BPF_PROG, is written so) and finds its
// closing brace by depth.
import { mkdtempSync, readdirSync, rmSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { API } from "typescript/unstable/async";
import { SyntaxKind, type Node, type SourceFile } from "typescript/unstable/ast";

export const FUNCTION_LINES_MAX = 100;

export interface LongFunction {
  file: string; // relative to the root given
  line: number;
  name: string;
  lines: number;
}

function sourceFiles(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" || e.name.startsWith(".") ? [] : sourceFiles(path, ext);
    return e.isFile() && ext.test(e.name) ? [path] : [];
  });
}

/** 1-based line of each offset: the offsets of the line starts, searched. */
function lineOf(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

const FUNCTION_KINDS = new Set([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
]);

/** What a function node is called: its own name, else that of the variable, property or member it is assigned to. */
function functionName(node: Node, file: SourceFile): string {
  if (node.kind === SyntaxKind.Constructor) return "constructor";
  for (const n of [node, node.parent]) {
    const name = (n as { name?: Node } | undefined)?.name;
    if (name) return file.text.slice(name.getStart(file), name.end);
  }
  return "(anonymous)";
}

async function longTsFunctions(root: string, files: string[], limit: number): Promise<LongFunction[]> {
  if (files.length === 0) return [];
  // A project of just these files, each parsed alone: no import is followed, no library loaded.
  const dir = mkdtempSync(join(tmpdir(), "function-lengths-"));
  const api = new API({ cwd: dir });
  try {
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { noResolve: true, noLib: true, types: [], noEmit: true, allowImportingTsExtensions: true }, files }));
    const snapshot = await api.updateSnapshot({ openProjects: [join(dir, "tsconfig.json")] });
    const program = snapshot.getProjects()[0]!.program;
    const found: LongFunction[] = [];
    for (const path of files) {
      const file = await program.getSourceFile(path);
      if (!file) throw new Error(`${relative(root, path)}: the TypeScript compiler did not read it`);
      const line = lineOf(file.text);
      const visit = (node: Node): void => {
        if (FUNCTION_KINDS.has(node.kind) && (node as { body?: Node }).body) {
          const start = line(node.getStart(file));
          const lines = line(node.end) - start + 1;
          if (lines > limit) found.push({ file: relative(root, path), line: start, name: functionName(node, file), lines });
        }
        node.forEachChild(visit);
      };
      visit(file);
    }
    return found;
  } finally {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The C source with comments, string and character literals and preprocessor lines blanked (newlines kept). */
export function blankC(text: string): string {
  const out = text.split("");
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== "\n") out[k] = " ";
  };
  let lineStart = true;
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    let end = i + 1;
    if (c === "/" && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      end = close < 0 ? text.length : close + 2;
    } else if (c === "/" && text[i + 1] === "/") {
      end = text.indexOf("\n", i);
      if (end < 0) end = text.length;
    } else if (c === '"' || c === "'") {
      while (end < text.length && text[end] !== c && text[end] !== "\n") end += text[end] === "\\" ? 2 : 1;
      end = Math.min(end + 1, text.length);
    } else if (c === "#" && lineStart) {
      // A directive runs to the end of its line, continued by a backslash before the newline.
      while (end < text.length && !(text[end] === "\n" && text[end - 1] !== "\\")) end++;
    } else {
      if (c === "\n") lineStart = true;
      else if (c !== " " && c !== "\t") lineStart = false;
      i = end;
      continue;
    }
    blank(i, end);
    lineStart = false;
    i = end;
  }
  return out.join("");
}

/** The index of the bracket that closes the one at `open` (same depth), or the text's length. */
function closing(text: string, open: number, step: 1 | -1): number {
  const [o, c] = step === 1 ? [text[open], text[open] === "{" ? "}" : ")"] : [text[open], "("];
  let depth = 0;
  for (let i = open; i >= 0 && i < text.length; i += step) {
    if (text[i] === o) depth++;
    else if (text[i] === c && --depth === 0) return i;
  }
  return step === 1 ? text.length : 0;
}

/** Each function definition of a C file: its name, the line of its name and its length in lines. */
export function cFunctions(source: string): { name: string; line: number; lines: number }[] {
  const text = blankC(source);
  const line = lineOf(text);
  const found: { name: string; line: number; lines: number }[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== "{") continue;
    const close = closing(text, i, 1);
    const before = text.slice(0, i).trimEnd();
    if (before.endsWith(")")) {
      const open = closing(text, before.length - 1, -1);
      // The name before the parameters; for a macro that defines a function (BPF_PROG(name, …)), its first argument.
      let name = /([A-Za-z_]\w*)\s*$/.exec(text.slice(0, open))?.[1] ?? "(unnamed)";
      if (/^[A-Z][A-Z0-9_]*$/.test(name)) name = /^\(\s*([A-Za-z_]\w*)/.exec(text.slice(open))?.[1] ?? name;
      const start = line(open);
      found.push({ name, line: start, lines: line(close) - start + 1 });
    }
    i = close; // a body or an initializer: nothing inside it is at file scope
  }
  return found;
}

/** The functions over `limit` lines in the .ts files and the .c/.h files under each of `dirs` (relative to `root`). */
export async function longFunctions(root: string, dirs: string[], limit = FUNCTION_LINES_MAX): Promise<LongFunction[]> {
  const base = resolve(root);
  const all = dirs.map((d) => resolve(base, d));
  const ts = all.flatMap((d) => sourceFiles(d, /\.ts$/)).filter((f) => !f.endsWith(".d.ts"));
  const found = await longTsFunctions(base, ts, limit);
  for (const path of all.flatMap((d) => sourceFiles(d, /\.[ch]$/))) {
    for (const f of cFunctions(readFileSync(path, "utf8"))) if (f.lines > limit) found.push({ file: relative(base, path), ...f });
  }
  return found.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

if (import.meta.main) {
  const dirs = process.argv.slice(2);
  const found = await longFunctions(process.cwd(), dirs.length ? dirs : ["src", "native/ptop/src"]);
  for (const f of found) console.log(`${f.file}:${f.line} ${f.name}: ${f.lines} lines (at most ${FUNCTION_LINES_MAX})`);
  process.exit(found.length ? 1 : 0);
}
