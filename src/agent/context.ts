import { createLogger, type Logger } from "../log.ts";
import { Redactor } from "./credentials/redactor.ts";
import { secretSourceFromEnv, type SecretSource } from "./credentials/secret-source.ts";

// What every connector receives: its configuration (plain environment), its credentials (through
// the secret source, which registers every value it hands out with the redactor) and a logger.

export type Env = Record<string, string | undefined>;

export interface AgentContext {
  env: Env;
  secrets: SecretSource;
  redactor: Redactor;
  log: Logger;
}

export function createAgentContext(env: Env = process.env, log: Logger = createLogger("agent")): AgentContext {
  const redactor = new Redactor();
  return { env, redactor, log, secrets: secretSourceFromEnv(env, redactor) };
}
