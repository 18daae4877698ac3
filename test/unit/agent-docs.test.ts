// docs/agent-connectors.md lists, for every connector but AWS/EKS, each catalogued operation with
// its access class and exact permissions — the page cannot drift from the catalog.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Catalog } from "../../src/agent/catalog.ts";
import { CONNECTORS } from "../../src/agent/connectors/index.ts";
import { REPO_ROOT } from "../helpers/runner-bin.ts";

const DOC = readFileSync(join(REPO_ROOT, "docs/agent-connectors.md"), "utf8");
const DOCUMENTED = ["datadog", "grafana", "gcp", "github", "slack", "jira", "argocd", "checkly", "vercel", "sonarqube", "amplitude", "cloudflare", "azion", "mongodb"];

describe("docs/agent-connectors.md", () => {
  const catalog = new Catalog(CONNECTORS);
  test("every operation of the documented connectors has its row, and every row is a catalogued operation", () => {
    const ops = catalog.operations().filter((o) => DOCUMENTED.includes(o.connector));
    expect(ops.length).toBeGreaterThan(50);
    for (const o of ops) expect(DOC).toContain(`| \`${o.name}\` | ${o.access} | ${o.permission.needs.join("; ")} |`);
    const rows = [...DOC.matchAll(/^\| `([^`]+)` \| (read|write) \|/gm)].map((m) => m[1]!);
    expect(rows.sort()).toEqual(ops.map((o) => o.name).sort());
  });

  test("the credential table has a row for every connector", () => {
    for (const c of catalog.connectors()) expect(DOC).toMatch(new RegExp(`^\\| \`${c.name}\` \\| `, "m"));
  });
});
