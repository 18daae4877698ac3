import pino from "pino";
import { REDACT_PATHS, redactSecrets, syncDestination } from "../log.ts";
import type { Redactor } from "./credentials/redactor.ts";

// The Agent logs to stderr (stdout carries command results) with the project's redaction, plus
// the redactor that knows every credential value the Agent has read: whatever field or message a
// credential ends up in, it is scrubbed before it is written.

export function createAgentLogger(redactor: Redactor, level = process.env.RUNNER_LOG_LEVEL ?? "warn") {
  return pino(
    {
      name: "agent",
      level,
      base: { role: "agent" },
      redact: { paths: REDACT_PATHS, censor: "[REDACTED]" },
      formatters: {
        log: (obj) => JSON.parse(redactor.scrub(JSON.stringify(obj))) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((a) => (typeof a === "string" ? redactor.scrub(redactSecrets(a)) : a));
          return method.apply(this, scrubbed as Parameters<typeof method>);
        },
        // Our own tokens, in any field at any depth, as in every other role's log.
        streamWrite: redactSecrets,
      },
    },
    syncDestination(2),
  );
}
