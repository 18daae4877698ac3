import type { Logger } from "pino";
import { Redactor } from "./credentials/redactor.ts";
import { secretSourceFromEnv, type SecretSource } from "./credentials/secret-source.ts";
import type { Env } from "./env.ts";
import { createAgentLogger } from "./log.ts";

// What every connector receives: its configuration (plain environment), its credentials (through
// the secret source, which registers every value it hands out with the redactor) and a logger.

export type { Env };

export interface AgentContext {
  env: Env;
  secrets: SecretSource;
  redactor: Redactor;
  log: Logger;
}

export function createAgentContext(env: Env = process.env, log?: Logger): AgentContext {
  const redactor = new Redactor();
  return { env, redactor, log: log ?? createAgentLogger(redactor), secrets: secretSourceFromEnv(env, redactor) };
}
