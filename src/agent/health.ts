import type { Catalog, HealthReport } from "./catalog.ts";
import type { AgentContext } from "./context.ts";
import { type AgentError, isAgentError } from "./errors.ts";

// `runner agent health`: every connector, one line each. An unconfigured connector is skipped
// (not an error); a configured one runs its own check, whose diagnostics name the fix.

export interface ConnectorHealth extends HealthReport {
  connector: string;
}

export async function runHealth(catalog: Catalog, ctx: AgentContext): Promise<ConnectorHealth[]> {
  const checks = catalog.connectors().map(async (c): Promise<ConnectorHealth> => {
    const why = c.unconfigured(ctx);
    if (why) return { connector: c.name, status: "skipped", detail: why };
    try {
      c.preflight?.(ctx); // configuration first: before any credential is fetched
      const handle = await c.open(ctx);
      return { connector: c.name, ...(await c.health(handle, ctx)) };
    } catch (e) {
      if (isAgentError(e)) return { connector: c.name, status: "error", detail: e.message, ...remedyOf(e) };
      return { connector: c.name, status: "error", detail: `health check failed: ${e instanceof Error ? e.message : String(e)}` };
    }
  });
  const results = await Promise.all(checks);
  // Health output is printed and logged: scrub credentials from every detail.
  const scrubbed = results.map((r) => ({ ...r, detail: ctx.redactor.scrub(r.detail), ...(r.fix ? { fix: ctx.redactor.scrub(r.fix) } : {}) }));
  for (const r of scrubbed) ctx.log[r.status === "error" ? "warn" : "info"](r, "connector health");
  return scrubbed;
}

function remedyOf(e: AgentError): Pick<ConnectorHealth, "missing" | "fix"> {
  return { ...(e.missing?.length ? { missing: e.missing } : {}), ...(e.fix ? { fix: e.fix } : {}) };
}
