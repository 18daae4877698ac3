// The checker of docs/rules.md's citations (test/unit/docs-rules-map.test.ts): `path#name` must
// name something the file declares, not any text it happens to contain, and `test-path#name` a
// test of that file. What counts as a declaration depends on the file:
//
// - TypeScript: a function, const/let/var, class, interface, type or enum of the module (a local
//   variable is not a definition to cite), or a method of a class, an interface or an object
//   literal (`name(…) {`, `name(…): T`, `name: (…) =>`).
// - C: a function definition (a prototype alone does not count).
// - Shell: a function or a variable assignment at the start of a line.
// - Dockerfile: an ARG or ENV variable or a stage name (`FROM … AS name`).
// - JSON and YAML: a key or a whole scalar value of the parsed document.
import { existsSync, readFileSync } from "node:fs";
import { basename, resolve } from "node:path";

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** After the `(` at `open`, the first character past its matching `)` that is not white space. */
function afterParens(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")" && --depth === 0) return text.slice(i + 1).trimStart()[0] ?? "";
  }
  return "";
}

/** Line-comment and block-comment text blanked out (same length), so a name in a comment is no declaration. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|(^|[^:"'`\\])\/\/.*$/gm, (m, lead: string | undefined) => (lead ?? "") + " ".repeat(m.length - (lead ?? "").length));
}

function declaresTs(source: string, name: string): boolean {
  const text = withoutComments(source);
  const n = escape(name);
  const topLevel = new RegExp(`^(?:export\\s+)?(?:default\\s+)?(?:declare\\s+)?(?:abstract\\s+)?(?:async\\s+)?(?:function\\s*\\*?|const|let|var|class|interface|type|enum)\\s+${n}\\b`, "m");
  if (topLevel.test(text)) return true;
  const arrowMember = new RegExp(`^\\s+(?:(?:readonly|private|protected|public|static)\\s+)*["']?${n}["']?\\??\\s*[:=]\\s*(?:async\\s+)?(?:\\([^)]*\\)|[\\w$]+)\\s*(?::[^=]+)?=>`, "m");
  if (arrowMember.test(text)) return true;
  const method = new RegExp(`^\\s+(?:(?:public|private|protected|static|readonly|override|async|get|set)\\s+)*\\*?["']?${n}["']?\\??\\s*(?:<[^>]*>)?\\(`, "gm");
  for (const m of text.matchAll(method)) {
    const next = afterParens(text, m.index + m[0].length - 1);
    if (next === "{" || next === ":") return true; // a definition or a signature, not a call
  }
  return false;
}

function declaresC(source: string, name: string): boolean {
  const text = withoutComments(source);
  // The name at the start of a line or after the return type that starts it, then its parameters and a body.
  const definition = new RegExp(`^(?:[A-Za-z_][\\w\\s\\*]*[\\s\\*])?${escape(name)}\\s*\\(`, "gm");
  for (const m of text.matchAll(definition)) {
    if (/^\s*(?:return|if|while|for|switch|else)\b/.test(m[0])) continue;
    if (afterParens(text, m.index + m[0].length - 1) === "{") return true;
  }
  return false;
}

function declaresShell(text: string, name: string): boolean {
  const n = escape(name);
  return new RegExp(`^(?:function\\s+${n}\\b|${n}\\s*\\(\\)|(?:export\\s+|readonly\\s+|local\\s+)?${n}=)`, "m").test(text);
}

function declaresDockerfile(text: string, name: string): boolean {
  const n = escape(name);
  return new RegExp(`^\\s*(?:ARG\\s+${n}\\b|ENV\\s+${n}[=\\s]|FROM\\s+\\S+\\s+AS\\s+${n}\\s*$)|^\\s+${n}=`, "im").test(text);
}

function declaresData(doc: unknown, name: string): boolean {
  if (Array.isArray(doc)) return doc.some((d) => declaresData(d, name));
  if (doc !== null && typeof doc === "object") return Object.entries(doc).some(([k, v]) => k === name || declaresData(v, name));
  return String(doc) === name;
}

/** Whether the file at `path` (its text given) declares `name`; null when this checker does not know the kind of file. */
export function declares(path: string, text: string, name: string): boolean | null {
  if (path.endsWith(".ts")) return declaresTs(text, name);
  if (path.endsWith(".c") || path.endsWith(".h")) return declaresC(text, name);
  if (path.endsWith(".sh")) return declaresShell(text, name);
  if (basename(path) === "Dockerfile") return declaresDockerfile(text, name);
  if (path.endsWith(".json")) return declaresData(JSON.parse(text), name);
  if (path.endsWith(".yaml") || path.endsWith(".yml")) return declaresData(Bun.YAML.parse(text), name);
  return null;
}

/** `path#name` citations in a piece of the map. */
export const citations = (cell: string) => [...cell.matchAll(/`([^`#]+)#([^`]+)`/g)].map((m) => ({ file: m[1]!, name: m[2]! }));

/** Each citation of the map's table rows that does not hold, said in one line. */
export function citationProblems(root: string, map: string): string[] {
  const rows = map.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| Rule |") && !l.startsWith("|---"));
  const problems: string[] = [];
  for (const { file, name } of rows.flatMap(citations)) {
    const path = resolve(root, file);
    if (!existsSync(path)) {
      problems.push(`${file}: no such file`);
      continue;
    }
    const text = readFileSync(path, "utf8");
    if (file.startsWith("test/")) {
      if (![`("${name}"`, `('${name}'`, `(\`${name}\``].some((q) => text.includes(q))) problems.push(`${file}: no test named ${JSON.stringify(name)}`);
      continue;
    }
    const found = declares(file, text, name);
    if (found === null) problems.push(`${file}: not a kind of file whose declarations this map can cite`);
    else if (!found) problems.push(`${file}: declares no ${JSON.stringify(name)}`);
  }
  return problems;
}
