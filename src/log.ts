import pino from "pino";

// Every credential the system handles must be unreadable in logs, wherever it travels:
// headers, query strings, request bodies, enrolment payloads, and any field a client controls
// (a token pasted as a workload, a version, an env, the org of a sign-in). Matched by shape, not
// by exact spelling, because a client decides how its text arrives:
// - the prefix in any case ("RPCAP_…"), and its "_" URL-encoded ("rpcap%5F…", "%255F" twice);
//   no word boundary in front, so "x_rpcap_…" does not slip through ("_" is a word character);
// - the body on its own, prefix dropped: 43 base62 characters of 256 random bits, with or without
//   the 6 of the checksum (token-format.ts), standing alone — between characters that are not
//   base62, or right after an escape (JSON's "\n", "\u001b"; a URL's "%3D"), which glues letters
//   to its front. A 64-character hex digest or a UUID is no such run and stays readable.
const PREFIXED = /(rpcap|rpboot|rpread)(_|%(?:25)?5f)[A-Za-z0-9]+/gi;
const BODY_ALONE = /(?:(?<![A-Za-z0-9])|(?<=\\[bfnrt])|(?<=\\u[0-9A-Fa-f]{4})|(?<=%[0-9A-Fa-f]{2}))[A-Za-z0-9]{43,49}(?![A-Za-z0-9])/g;
const QUERY_TOKEN = /([?&]token=)[^&\s"]+/gi;

export function redactSecrets(text: string): string {
  return text.replace(PREFIXED, "$1$2[REDACTED]").replace(BODY_ALONE, "[REDACTED]").replace(QUERY_TOKEN, "$1[REDACTED]");
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
