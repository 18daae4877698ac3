// `runner capture` — the pipeline client. Queues a capture with a capture token and prints the 202
// body; with --wait, follows it with a read token until its verdict is known and exits with the
// status a pipeline gates a deploy on (wait-capture.ts GATE_EXIT).
import type { CaptureRequestBody } from "../protocol/capture-request.ts";
import { CliUsageError, parseCommandLine, USAGE_EXIT } from "../cli-args.ts";
import { terminalSafe } from "../terminal-text.ts";
import { attemptQueueCapture } from "./queue-capture.ts";
import { GATE_EXIT, waitForVerdict } from "./wait-capture.ts";

const MAX_ATTEMPTS = 5;
const DEFAULT_TIMEOUT_SEC = 1800;
const USAGE = `usage: runner capture --url BASE --workload W --version V
                      [--env E] [--kind head|replicate] [--duration S] [--warmup S] [--retry]
                      [--wait [--json] [--timeout S]]
       runner capture --url BASE --wait --request-id ID [--json] [--timeout S]
  The tokens come from the environment: RUNNER_CAPTURE_TOKEN (queues) and, with --wait,
  RUNNER_READ_TOKEN (reads). --token and --read-token still work, but put a token in the command
  line, where ps shows it to every local user.
  --retry waits the server's retry_after_seconds after a 429 and tries again (up to ${MAX_ATTEMPTS} attempts).
  --wait follows the capture (a read token, rpread_…: a capture token reads nothing) and prints its
  outcome, the verdict and the changed functions as they arrive; --json prints one JSON object per
  line instead, the last with "event": "result". Exit status with --wait:
    ${GATE_EXIT.unchanged}  unchanged (or changed with nothing costing more)
    ${GATE_EXIT.regression}  changed with a confirmed regression
    ${GATE_EXIT.insufficient}  insufficient: no baseline yet, too few captures, or a rise not yet confirmed
    ${GATE_EXIT.failed}  the capture failed or pushed nothing, or no diff could be made
    1  an error: refused, unreachable, or no verdict within --timeout (default ${DEFAULT_TIMEOUT_SEC} s)
    ${USAGE_EXIT}  a usage error
`;

const inArgv = (flag: string, kind: string, env: string) =>
  `runner capture: warning: ${flag} puts the ${kind} in the command line, where ps shows it to every local user; set ${env} instead\n`;

function numberFlag(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) throw new CliUsageError(`${flag} must be a number of seconds, got "${value}"`);
  return n;
}

function parse(argv: string[]) {
  const { values } = parseCommandLine({
    args: argv,
    options: {
      url: { type: "string" },
      token: { type: "string" },
      workload: { type: "string" },
      version: { type: "string" },
      env: { type: "string" },
      kind: { type: "string" },
      duration: { type: "string" },
      warmup: { type: "string" },
      retry: { type: "boolean", default: false },
      wait: { type: "boolean", default: false },
      "read-token": { type: "string" },
      "request-id": { type: "string" },
      json: { type: "boolean", default: false },
      timeout: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) return null;
  if (!values.url) throw new CliUsageError("--url is required");
  // fetch() would only say "URL is invalid" for 127.0.0.1:8080 or a typo'd scheme.
  if (!/^https?:\/\/[^/?#\s]+/i.test(values.url)) {
    throw new CliUsageError(`--url must be the control plane's base URL with its scheme, e.g. https://runner.example.com or http://127.0.0.1:8080; got "${values.url}"`);
  }
  const readToken = values["read-token"] ?? process.env.RUNNER_READ_TOKEN;
  if (values["read-token"] !== undefined) process.stderr.write(inArgv("--read-token", "read token", "RUNNER_READ_TOKEN"));
  const timeoutSec = numberFlag(values.timeout, "--timeout") ?? DEFAULT_TIMEOUT_SEC;
  if (values.wait && !readToken) throw new CliUsageError("--wait needs a read token (rpread_…): set RUNNER_READ_TOKEN (a capture token reads nothing)");
  if (!values.wait) {
    for (const f of ["read-token", "request-id", "json", "timeout"] as const) if (values[f]) throw new CliUsageError(`--${f} only goes with --wait`);
  }
  const wait = values.wait ? { readToken: readToken!, json: values.json!, timeoutSec } : null;
  if (values["request-id"] !== undefined) {
    for (const f of ["token", "workload", "version", "env", "kind", "duration", "warmup"] as const) {
      if (values[f] !== undefined) throw new CliUsageError(`--request-id follows a capture already queued; --${f} does not go with it`);
    }
    return { url: values.url, queue: null, requestId: values["request-id"], retry: false, wait };
  }
  const token = values.token ?? process.env.RUNNER_CAPTURE_TOKEN;
  for (const [flag, v] of [["--workload", values.workload], ["--version", values.version]] as const) {
    if (!v) throw new CliUsageError(`${flag} is required`);
  }
  if (!token) throw new CliUsageError("a capture token is required: set RUNNER_CAPTURE_TOKEN (or pass --token, which ps shows to every local user)");
  if (values.token !== undefined) process.stderr.write(inArgv("--token", "capture token", "RUNNER_CAPTURE_TOKEN"));
  if (values.kind !== undefined && values.kind !== "head" && values.kind !== "replicate") {
    throw new CliUsageError(`--kind must be head or replicate, got "${values.kind}"`);
  }
  // Only what the user gave is sent; the server owns the defaults and the ranges.
  const body: CaptureRequestBody = { workload: values.workload!, version: values.version! };
  if (values.env !== undefined) body.env = values.env;
  if (values.kind !== undefined) body.kind = values.kind;
  const duration = numberFlag(values.duration, "--duration");
  if (duration !== undefined) body.duration_sec = duration;
  const warmup = numberFlag(values.warmup, "--warmup");
  if (warmup !== undefined) body.warmup_sec = warmup;
  return { url: values.url, queue: { token, body }, requestId: null, retry: values.retry!, wait };
}

export async function captureCommand(argv: string[]): Promise<number> {
  let req;
  try {
    req = parse(argv);
  } catch (err) {
    if (!(err instanceof CliUsageError)) throw err;
    process.stderr.write(`runner capture: ${err.message}\n${USAGE}`);
    return USAGE_EXIT;
  }
  if (!req) {
    process.stdout.write(USAGE);
    return 0;
  }
  let requestId = req.requestId;
  if (req.queue) {
    const queued = await queue(req.url, req.queue.token, req.queue.body, req.retry, req.wait?.json ?? false);
    if (typeof queued === "number") return queued;
    requestId = queued;
  }
  if (!req.wait) return 0;
  return waitForVerdict({ url: req.url, requestId: requestId!, ...req.wait });
}

/** Queues the capture; its request id, or the exit status of a refusal. */
async function queue(url: string, token: string, body: CaptureRequestBody, retry: boolean, jsonLines: boolean): Promise<string | number> {
  for (let attempt = 1; ; attempt++) {
    const result = await attemptQueueCapture(url, token, body);
    if (result.kind === "accepted") {
      process.stdout.write(`${JSON.stringify(jsonLines ? { event: "queued", ...result.body } : result.body)}\n`);
      if (result.body.deduped) process.stderr.write("runner capture: an identical request is already in flight; its id is returned\n");
      return result.body.request_id;
    }
    if (result.kind === "rate_limited" && retry && attempt < MAX_ATTEMPTS) {
      process.stderr.write(`runner capture: rate limited; waiting ${result.retryAfterSeconds} s before attempt ${attempt + 1}\n`);
      await Bun.sleep(result.retryAfterSeconds * 1000);
      continue;
    }
    // The message quotes the server (or a proxy in front of it): printed terminal-safe.
    process.stderr.write(`runner capture: ${terminalSafe(result.message)}\n`);
    return 1;
  }
}
