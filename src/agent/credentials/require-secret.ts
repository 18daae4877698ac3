import type { AgentContext } from "../context.ts";
import { AgentError } from "../errors.ts";

/** A connector's credential, or `not_configured` naming it (and, when given, what it must be). */
export async function requireSecret(ctx: AgentContext, name: string, hint?: string): Promise<string> {
  const value = await ctx.secrets.get(name);
  if (!value) throw new AgentError("not_configured", `${name} is not set${hint ? ` (${hint})` : ""}`);
  return value;
}
