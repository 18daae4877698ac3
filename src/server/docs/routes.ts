import { realpathSync } from "node:fs";
import { join, sep } from "node:path";
import { Elysia } from "elysia";
import { EMBEDDED_POLICIES } from "./embedded-policies.ts";

// {docs_url} = {base_url}/docs. `policies/<cloud>/NAME.json` is served byte for byte at
// `/docs/<cloud>/NAME.json` (the reference's read-only cloud policy file), and likewise the
// cluster role YAML and RBAC lines beside it. Names are matched strictly: no traversal, no
// directories, no hidden files. Without `policiesDir`, the copies compiled into the executable
// are served.

const CLOUD = /^[a-z0-9][a-z0-9-]{0,31}$/;
const FILE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}\.(json|yaml|csv)$/;
const TYPES: Record<string, string> = {
  json: "application/json",
  yaml: "application/yaml",
  csv: "text/csv; charset=utf-8",
};

export interface DocsOptions {
  policiesDir?: string;
}

export function docsRoutes({ policiesDir }: DocsOptions = {}) {
  const root = policiesDir ? realpathSync(policiesDir) : undefined;
  return new Elysia({ name: "docs", seed: root ?? "embedded" }).get("/docs/:cloud/:file", async ({ params, set }) => {
    const { cloud, file } = params;
    const ext = FILE.exec(file)?.[1];
    if (!CLOUD.test(cloud) || !ext) return notFound(set);
    const path = root ? inside(root, cloud, file) : EMBEDDED_POLICIES[`${cloud}/${file}`];
    if (!path) return notFound(set);
    const body = Bun.file(path);
    if (!(await body.exists())) return notFound(set);
    return new Response(body, {
      headers: { "content-type": TYPES[ext]!, "cache-control": "public, max-age=300", "x-content-type-options": "nosniff" },
    });
  });
}

/** The real path of root/cloud/file when it exists and stays inside root (symlinks resolved). */
function inside(root: string, cloud: string, file: string): string | undefined {
  try {
    const path = realpathSync(join(root, cloud, file));
    return path.startsWith(root + sep) ? path : undefined;
  } catch {
    return undefined;
  }
}

function notFound(set: { status?: number | string }) {
  set.status = 404;
  return { error: "not found" };
}
