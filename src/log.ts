import pino from "pino";

// Every credential the system handles must be unreadable in logs, wherever it travels:
// headers, query strings, request bodies, enrolment payloads.
const TOKEN_PATTERN = /\b(rpcap|rpboot)_[A-Za-z0-9]+/g;

export function redactSecrets(text: string): string {
  return text.replace(TOKEN_PATTERN, "$1_[REDACTED]").replace(/([?&]token=)[^&\s"]+/gi, "$1[REDACTED]");
}

export const REDACT_PATHS = [
  "authorization",
  "req.headers.authorization",
  "headers.authorization",
  "token",
  "*.token",
  "bootstrap_token",
  "*.bootstrap_token",
  "password",
  "*.password",
];

// Synchronous writes for one-shot commands: they end with process.exit, which drops lines still
// queued in an asynchronous destination (the boot line of --boot-only, an operation's failure).
// Long-running roles (the server logs every queued request) keep pino's asynchronous default.
export const syncDestination = (fd: 1 | 2) => pino.destination({ dest: fd, sync: true });

export function createLogger(name: string, level = process.env.RUNNER_LOG_LEVEL ?? "info", opts: { sync?: boolean } = {}) {
  return pino({
    name,
    level,
    base: { role: name },
    redact: { paths: REDACT_PATHS, censor: "[REDACTED]" },
    hooks: {
      // Free-text messages (URLs, error strings) are scrubbed too; structured fields by `redact`.
      logMethod(args, method) {
        const scrubbed = args.map((a) => (typeof a === "string" ? redactSecrets(a) : a));
        return method.apply(this, scrubbed as Parameters<typeof method>);
      },
    },
  }, opts.sync ? syncDestination(1) : undefined);
}

export type Logger = ReturnType<typeof createLogger>;
