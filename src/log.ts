import pino from "pino";

// Every credential the system handles must be unreadable in logs, wherever it travels:
// headers, query strings, request bodies, enrolment payloads, and any field a client controls
// (a token pasted as a workload, a version, an env, the org of a sign-in). No word boundary in
// front: "x_rpcap_…" must not slip through because "_" is a word character.
const TOKEN_PATTERN = /(rpcap|rpboot|rpread)_[A-Za-z0-9]+/g;

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
      // The whole serialized line, once, whatever produced it: the message, every field at any
      // depth (bindings, nested objects, serialized errors). Our tokens are [A-Za-z0-9_] only, so
      // JSON escaping never splits one. `redact` above still censors fixed secret paths (passwords).
      streamWrite: redactSecrets,
    },
  }, opts.sync ? syncDestination(1) : undefined);
}

export type Logger = ReturnType<typeof createLogger>;
