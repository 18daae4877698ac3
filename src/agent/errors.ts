// Every failure the Agent reports carries a stable code (for scripts) and a message written for
// the person who has to fix it. Messages never carry credential values: they go through the
// redactor before leaving the process (see credentials/redactor.ts).

export type AgentErrorCode =
  | "not_in_catalog" // enforcement: the operation does not exist for the Agent
  | "invalid_arguments" // enforcement: arguments fail the operation's schema
  | "not_configured" // the connector has no credentials/config in this environment
  | "invalid_query" // a query operation refused the text before sending it (DDL/DML)
  | "permission" // the third party refused; the message names the missing permission
  | "misconfigured" // the configuration points at the wrong place (e.g. regional site)
  | "upstream"; // any other third-party failure

/** What a person needs to act on a failure: the permission(s) missing and the fix, in words. */
export interface Remedy {
  missing?: string[];
  fix?: string;
}

export class AgentError extends Error {
  readonly missing: string[] | undefined;
  readonly fix: string | undefined;
  constructor(
    readonly code: AgentErrorCode,
    message: string,
    remedy: Remedy = {},
  ) {
    super(message);
    this.name = "AgentError";
    this.missing = remedy.missing;
    this.fix = remedy.fix;
  }
}

export function isAgentError(e: unknown): e is AgentError {
  return e instanceof AgentError;
}
