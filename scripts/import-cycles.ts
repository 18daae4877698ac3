// Import cycles among the TypeScript modules under a folder: `bun scripts/import-cycles.ts [DIR]`
// prints each cycle as `a.ts → b.ts → a.ts` and exits 1 when there is one (DIR defaults to the
// current folder; node_modules, dist and dot-folders are not read). test/unit/import-cycles.test.ts
// runs it on the repository in `npm test`.
//
// Every import counts, type-only ones too: a module that needs another's types to be read is as
// tangled with it as one that calls it. Bun's own parser lists each file's imports, re-exports and
// dynamic imports (so comments and strings are never mistaken for them); it drops type-only ones,
// so they are turned into plain ones first. Only relative specifiers that resolve to a .ts file
// inside DIR are edges; packages and embedded assets (.c, .json, .yaml) are leaves.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" || e.name === "dist" || e.name.startsWith(".") ? [] : tsFiles(path);
    return e.isFile() && path.endsWith(".ts") && !path.endsWith(".d.ts") ? [path] : [];
  });
}

function resolveSpecifier(from: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, join(base, "index.ts")]) {
    if (candidate.endsWith(".ts") && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** The source with `import type`, `export type {…}` and `{ type X }` specifiers as plain ones, so the parser keeps them. */
function typesAsValues(source: string): string {
  return source
    .replace(/^#!.*/, "") // a shebang line is the shell's: the parser refuses it
    .replace(/\bimport\s+type\s+(?=[{*\w$])/g, "import ")
    .replace(/\bexport\s+type\s+(?=[{*])/g, "export ")
    .replace(/([{,]\s*)type\s+(?=[\w$]+\s*(?:[,}]|as\b))/g, "$1");
}

/** Each file under `dir` with the files under `dir` it imports at run time. */
export function importGraph(dir: string): Map<string, string[]> {
  const root = resolve(dir);
  const transpiler = new Bun.Transpiler({ loader: "ts" });
  const graph = new Map<string, string[]>();
  for (const file of tsFiles(root)) {
    let imports: ReturnType<typeof transpiler.scanImports>;
    try {
      imports = transpiler.scanImports(typesAsValues(readFileSync(file, "utf8")));
    } catch (err) {
      throw new Error(`${relative(root, file)}: cannot list its imports: ${(err as Error).message}`);
    }
    const targets = imports
      .map((i) => resolveSpecifier(file, i.path))
      .filter((t): t is string => t !== null && t.startsWith(`${root}/`));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * One cycle per strongly connected component of the graph (Tarjan), as a closed path of files
 * relative to `dir`, first file repeated at the end. Empty when the graph has no cycle.
 */
export function importCycles(dir: string): string[][] {
  const graph = importGraph(dir);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) components.push(component);
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  const root = resolve(dir);
  return components.map((c) => closedPath(graph, new Set(c)).map((f) => relative(root, f))).sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** A shortest closed path through the component's first file (breadth-first within the component). */
function closedPath(graph: Map<string, string[]>, component: Set<string>): string[] {
  const start = [...component].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let at = v; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  throw new Error(`no cycle through ${start}, although it is in a strongly connected component`);
}

if (import.meta.main) {
  const dir = process.argv[2] ?? ".";
  const cycles = importCycles(dir);
  for (const c of cycles) console.log(`import cycle in ${dir}: ${c.join(" → ")}`);
  if (cycles.length === 0) console.log(`no import cycle in ${dir}`);
  process.exit(cycles.length ? 1 : 0);
}
