// `RUNNER_CAPTURE_TOKEN=T runner capture --url BASE --workload W --version V [--env E] [--kind head|replicate]
//  [--duration S] [--warmup S] [--retry]` — the pipeline client. Prints the 202 body as JSON.
import { parseArgs } from "node:util";
import type { CaptureRequestBody } from "../protocol/capture-request.ts";
import { terminalSafe } from "../terminal-text.ts";
import { attemptQueueCapture } from "./queue-capture.ts";

const MAX_ATTEMPTS = 5;
const USAGE = `usage: runner capture --url BASE --workload W --version V
                      [--env E] [--kind head|replicate] [--duration S] [--warmup S] [--retry]
  The capture token comes from the environment: RUNNER_CAPTURE_TOKEN=… runner capture …
  --token TOKEN still works, but puts the token in the command line, where ps shows it to every
  local user.
  --retry waits the server's retry_after_seconds after a 429 and tries again (up to ${MAX_ATTEMPTS} attempts).
`;

class UsageError extends Error {}

const TOKEN_IN_ARGV = "runner capture: warning: --token puts the capture token in the command line, where ps shows it to every local user; set RUNNER_CAPTURE_TOKEN instead\n";

function numberFlag(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) throw new UsageError(`${flag} must be a number of seconds, got "${value}"`);
  return n;
}

function buildRequest(argv: string[]) {
  const { values } = parseArgs({
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
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) return null;
  const token = values.token ?? process.env.RUNNER_CAPTURE_TOKEN;
  for (const [flag, v] of [["--url", values.url], ["--workload", values.workload], ["--version", values.version]] as const) {
    if (!v) throw new UsageError(`${flag} is required`);
  }
  if (!token) throw new UsageError("a capture token is required: set RUNNER_CAPTURE_TOKEN (or pass --token, which ps shows to every local user)");
  if (values.token !== undefined) process.stderr.write(TOKEN_IN_ARGV);
  // fetch() would only say "URL is invalid" for 127.0.0.1:8080 or a typo'd scheme.
  if (!/^https?:\/\/[^/?#\s]+/i.test(values.url!)) {
    throw new UsageError(`--url must be the control plane's base URL with its scheme, e.g. https://runner.example.com or http://127.0.0.1:8080; got "${values.url}"`);
  }
  if (values.kind !== undefined && values.kind !== "head" && values.kind !== "replicate") {
    throw new UsageError(`--kind must be head or replicate, got "${values.kind}"`);
  }
  // Only what the user gave is sent; the server owns the defaults and the ranges.
  const body: CaptureRequestBody = { workload: values.workload!, version: values.version! };
  if (values.env !== undefined) body.env = values.env;
  if (values.kind !== undefined) body.kind = values.kind;
  const duration = numberFlag(values.duration, "--duration");
  if (duration !== undefined) body.duration_sec = duration;
  const warmup = numberFlag(values.warmup, "--warmup");
  if (warmup !== undefined) body.warmup_sec = warmup;
  return { url: values.url!, token, body, retry: values.retry! };
}

export async function captureCommand(argv: string[]): Promise<number> {
  let req;
  try {
    req = buildRequest(argv);
  } catch (err) {
    process.stderr.write(`runner capture: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (!req) {
    process.stdout.write(USAGE);
    return 0;
  }
  for (let attempt = 1; ; attempt++) {
    const result = await attemptQueueCapture(req.url, req.token, req.body);
    if (result.kind === "accepted") {
      process.stdout.write(`${JSON.stringify(result.body)}\n`);
      if (result.body.deduped) process.stderr.write("runner capture: an identical request is already in flight; its id is returned\n");
      return 0;
    }
    if (result.kind === "rate_limited" && req.retry && attempt < MAX_ATTEMPTS) {
      process.stderr.write(`runner capture: rate limited; waiting ${result.retryAfterSeconds} s before attempt ${attempt + 1}\n`);
      await Bun.sleep(result.retryAfterSeconds * 1000);
      continue;
    }
    // The message quotes the server (or a proxy in front of it): printed terminal-safe.
    process.stderr.write(`runner capture: ${terminalSafe(result.message)}\n`);
    return 1;
  }
}
