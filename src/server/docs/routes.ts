import { realpathSync } from "node:fs";
import { join, sep } from "node:path";
import { Elysia } from "elysia";

// {docs_url} = {base_url}/docs. `policies/<cloud>/NAME.json` is served byte for byte at
// `/docs/<cloud>/NAME.json` (the reference's read-only cloud policy file), and likewise the
// cluster role YAML and RBAC lines beside it. Names are matched strictly: no traversal, no
// directories, no hidden files.

const CLOUD = /^[a-z0-9][a-z0-9-]{0,31}$/;
const FILE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}\.(json|yaml|csv)$/;
const TYPES: Record<string, string> = {
  json: "application/json",
  yaml: "application/yaml",
  csv: "text/csv; charset=utf-8",
};

export interface DocsOptions {
  policiesDir: string;
}

export function docsRoutes({ policiesDir }: DocsOptions) {
  const root = realpathSync(policiesDir);
  return new Elysia({ name: "docs", seed: root }).get("/docs/:cloud/:file", async ({ params, set }) => {
    const { cloud, file } = params;
    const ext = FILE.exec(file)?.[1];
    if (!CLOUD.test(cloud) || !ext) return notFound(set);
    let path: string;
    try {
      // Resolve symlinks so a link inside policies/ cannot point outside it.
      path = realpathSync(join(root, cloud, file));
    } catch {
      return notFound(set);
    }
    if (!path.startsWith(root + sep)) return notFound(set);
    const body = Bun.file(path);
    if (!(await body.exists())) return notFound(set);
    return new Response(body, {
      headers: { "content-type": TYPES[ext]!, "cache-control": "public, max-age=300", "x-content-type-options": "nosniff" },
    });
  });
}

function notFound(set: { status?: number | string }) {
  set.status = 404;
  return { error: "not found" };
}
