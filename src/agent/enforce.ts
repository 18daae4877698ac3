import { Value } from "@sinclair/typebox/value";
import type { Catalog } from "./catalog.ts";
import type { AgentContext } from "./context.ts";
import { AgentError } from "./errors.ts";

// Enforcement, in this order and no other:
//   1. the operation must be in the catalog — checked on the name alone, before the arguments are
//      parsed or validated and before any connector code (client construction, credential reads);
//   2. the arguments must satisfy the operation's schema;
//   3. the secret store's configuration (RUNNER_SECRET_STORE_MODE) must be valid, the connector must
//      be configured, and the operation's own configuration and argument checks
//      (preflight) must pass; only then is the connector opened (credentials fetched) and the
//      operation run. Configuration errors therefore come before any credential error.

/** Raw arguments may still be unparsed JSON text: parsing them is part of step 2, not step 1. */
export type RawArgs = string | unknown;

export async function enforceAndRun(catalog: Catalog, name: string, rawArgs: RawArgs, ctx: AgentContext): Promise<unknown> {
  const operation = catalog.lookup(name); // step 1: throws not_in_catalog

  const args = parseArgs(name, rawArgs); // step 2
  if (!Value.Check(operation.args, args)) {
    const problems = [...Value.Errors(operation.args, args)]
      .slice(0, 5)
      .map((e) => `${e.path || "/"}: ${e.message}`)
      .join("; ");
    throw new AgentError("invalid_arguments", `arguments of ${name} are invalid: ${problems}`);
  }

  // step 3; the secret store's configuration first, as it serves every connector
  if (ctx.secrets.problem) throw ctx.secrets.problem;
  const connector = catalog.connector(operation.connector);
  const why = connector.unconfigured(ctx);
  if (why) throw new AgentError("not_configured", `${connector.name} is not configured: ${why}`);
  const started = performance.now();
  try {
    operation.preflight?.(args, ctx);
    const handle = await connector.open(ctx);
    const result = await operation.run(handle, args, ctx);
    ctx.log.info({ op: name, connector: connector.name, ms: Math.round(performance.now() - started) }, "operation done");
    return result;
  } catch (e) {
    // Messages may quote third-party error text; the logger scrubs every known credential.
    ctx.log.warn({ op: name, connector: connector.name, code: (e as AgentError).code, err: e instanceof Error ? e.message : String(e) }, "operation failed");
    throw e;
  }
}

function parseArgs(name: string, raw: RawArgs): unknown {
  if (raw === undefined) return {};
  if (typeof raw !== "string") return raw;
  try {
    return JSON.parse(raw);
  } catch {
    throw new AgentError("invalid_arguments", `arguments of ${name} are not valid JSON`);
  }
}
