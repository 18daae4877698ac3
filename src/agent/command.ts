import { Catalog } from "./catalog.ts";
import { CONNECTORS } from "./connectors/index.ts";
import { createAgentContext } from "./context.ts";
import { enforceAndRun } from "./enforce.ts";
import { isAgentError } from "./errors.ts";
import { runHealth } from "./health.ts";
import { healthTable } from "./health-table.ts";

// `runner agent catalog [--json]` | `runner agent run OP --args JSON` | `runner agent health [--json]`

const USAGE = "usage: runner agent catalog [--json] | run OP [--args JSON] | health [--json]\n";

export async function agentCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "--help" || sub === "-h" || sub === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  const catalog = new Catalog(CONNECTORS);
  if (sub === "catalog") return printCatalog(catalog, rest.includes("--json"));
  if (sub === "run") return runOne(catalog, rest);
  if (sub === "health") return health(catalog, rest.includes("--json"));
  process.stderr.write(USAGE);
  return 2;
}

function printCatalog(catalog: Catalog, json: boolean): number {
  const ops = catalog.operations();
  if (json) {
    const out = ops.map((o) => ({ name: o.name, connector: o.connector, access: o.access, summary: o.summary, permission: o.permission, args: o.args, example: o.example }));
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return 0;
  }
  for (const o of ops) {
    process.stdout.write(`${o.name.padEnd(58)} ${o.access.padEnd(5)} ${o.permission.system}: ${o.permission.needs.join(", ")}\n`);
  }
  return 0;
}

async function runOne(catalog: Catalog, argv: string[]): Promise<number> {
  const name = argv[0];
  if (!name || name.startsWith("--")) {
    process.stderr.write(USAGE);
    return 2;
  }
  // Enforcement step 1 before anything else: before the command line's --args is even looked at,
  // and before the context reads its configuration.
  if (!catalog.has(name)) return fail(catalog, name, undefined);
  const at = argv.indexOf("--args");
  const rawArgs = at === -1 ? undefined : argv[at + 1];
  if (at !== -1 && rawArgs === undefined) {
    process.stderr.write(`runner agent: invalid_arguments: --args of ${name} needs a JSON value\n`);
    return 2;
  }
  const ctx = createAgentContext();
  try {
    const result = await enforceAndRun(catalog, name, rawArgs, ctx);
    process.stdout.write(`${ctx.redactor.scrub(JSON.stringify(result ?? null, null, 2))}\n`);
    return 0;
  } catch (e) {
    return fail(catalog, name, e, (t) => ctx.redactor.scrub(t));
  }
}

function fail(catalog: Catalog, name: string, e: unknown, scrub: (t: string) => string = (t) => t): number {
  if (e === undefined) {
    try {
      catalog.lookup(name);
    } catch (err) {
      e = err;
    }
  }
  if (isAgentError(e)) {
    process.stderr.write(`runner agent: ${e.code}: ${scrub(e.message)}\n`);
    return e.code === "not_in_catalog" || e.code === "invalid_arguments" ? 2 : 1;
  }
  process.stderr.write(`runner agent: ${scrub(e instanceof Error ? `${e.name}: ${e.message}` : String(e))}\n`);
  return 1;
}

async function health(catalog: Catalog, json: boolean): Promise<number> {
  const ctx = createAgentContext();
  const results = await runHealth(catalog, ctx);
  if (json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  else process.stdout.write(healthTable(results));
  // A broken secret store is no connector's row (each configured one already says it cannot read
  // its credential), but it needs action even when no connector is configured.
  const store = ctx.secrets.problem;
  if (store) process.stderr.write(`runner agent: ${store.code}: ${store.message}\n`);
  return store || results.some((r) => r.status === "error") ? 1 : 0;
}
