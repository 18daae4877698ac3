// `runner capture --wait`: follows a queued capture with a read token until its verdict is known,
// printing each step as it arrives, and turns the verdict into the exit status a pipeline gates on.
import { gateOf, type CaptureStatusBody, type ChangedFunction, type Gate } from "../protocol/capture-status.ts";
import { signedPercent as pct } from "../witness/index.ts";
import { terminalJson, terminalSafe } from "../terminal-text.ts";
import { capturesUrl } from "./queue-capture.ts";

/** The exit status of each result (README "runner capture --wait"). 1 is an error, 2 a usage error. */
export const GATE_EXIT: Record<Gate, number> = { unchanged: 0, improved: 0, regression: 3, insufficient: 4, failed: 5 };

const GATE_WORDS: Record<Gate, string> = {
  unchanged: "unchanged: no function changed beyond the noise floor",
  improved: "changed, and nothing costs more (improvements only)",
  regression: "a confirmed regression",
  insufficient: "insufficient: not enough to decide (no baseline yet, too few captures, or a rise not yet confirmed by a replicate)",
  failed: "the capture failed or could not be compared",
};

export interface WaitOptions {
  url: string;
  readToken: string;
  requestId: string;
  json: boolean;
  timeoutSec: number;
  pollMs?: number;
}

type Fetched = { ok: true; body: CaptureStatusBody } | { ok: false; fatal: boolean; message: string };

async function fetchStatus(o: WaitOptions): Promise<Fetched> {
  let res: Response;
  try {
    res = await fetch(`${capturesUrl(o.url)}/${encodeURIComponent(o.requestId)}`, { headers: { authorization: `Bearer ${o.readToken}` } });
  } catch (err) {
    return { ok: false, fatal: false, message: `could not reach ${o.url}: ${(err as Error).message}` };
  }
  const text = await res.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(text);
  } catch {
    // a proxy's error page; reported by status
  }
  if (res.status === 200 && json) return { ok: true, body: json as unknown as CaptureStatusBody };
  const says = typeof json?.error === "string" ? `: ${json.error}` : "";
  if (res.status === 401) return { ok: false, fatal: true, message: `401: the read token was refused${says}` };
  if (res.status === 404) return { ok: false, fatal: true, message: `404${says || ": no such capture"}` };
  // 5xx and gateways: the control plane may be restarting; keep trying until the timeout.
  return { ok: false, fatal: res.status < 500, message: `${res.status}${says || (res.status === 200 ? ": not the control plane's answer (not JSON); check --url" : "")}` };
}

function changeLine(c: ChangedFunction): string {
  const arrow = c.direction === "up" ? "↑" : "↓";
  return `  ${arrow} ${c.function}  ${c.axis} ${c.cost}  ${pct(c.relative_change)}  [${pct(c.interval[0])}, ${pct(c.interval[1])}]  ${c.confirmation ?? ""}`.trimEnd();
}

/** Follows the capture; returns the exit status. */
export async function waitForVerdict(o: WaitOptions): Promise<number> {
  // What the record says (a failure reason from a Profiler, function names from the profiled
  // binaries) is printed terminal-safe: text with its control characters written out, JSON as JSON.
  const say = (s: string) => process.stdout.write(`${terminalSafe(s)}\n`);
  const sayJson = (v: unknown) => process.stdout.write(`${terminalJson(v, 0)}\n`);
  const deadline = Date.now() + o.timeoutSec * 1000;
  let last = "";
  let warned = false;
  for (;;) {
    const f = await fetchStatus(o);
    if (!f.ok) {
      if (f.fatal) return (process.stderr.write(`runner capture: ${terminalSafe(f.message)}\n`), 1);
      if (!warned) process.stderr.write(`runner capture: ${terminalSafe(f.message)}; still trying\n`);
      warned = true;
    } else {
      const s = f.body;
      const finished = s.status === "done" && !s.verdict_pending;
      const seen = JSON.stringify([s.status, s.outcome, s.verdict_pending, s.diff?.computed_at]);
      if (finished) return report(s, o.json, say, sayJson);
      if (seen !== last) {
        last = seen;
        if (o.json) sayJson({ event: "status", ...s });
        else say(progressLine(s));
      }
    }
    if (Date.now() > deadline) {
      process.stderr.write(`runner capture: no verdict for ${o.requestId} within ${o.timeoutSec} s (--timeout); it is still ${last ? "in flight" : "unknown"}\n`);
      return 1;
    }
    await Bun.sleep(o.pollMs ?? 2000);
  }
}

function progressLine(s: CaptureStatusBody): string {
  if (s.status === "queued") return `${s.request_id}: queued (waits for a live Profiler)`;
  if (s.status === "running") return `${s.request_id}: running`;
  return `${s.request_id}: ${s.outcome}; computing the diff`;
}

function report(s: CaptureStatusBody, json: boolean, say: (s: string) => void, sayJson: (v: unknown) => void): number {
  const gate = gateOf(s);
  const code = GATE_EXIT[gate];
  if (json) {
    sayJson({ event: "result", gate, exit_code: code, ...s });
    return code;
  }
  say(`${s.request_id}: ${s.outcome}${s.reason ? ` (${s.reason})` : ""}`);
  const d = s.diff;
  if (d) {
    say(`  ${d.note}`);
    if (d.verdict) say(`  verdict: ${d.verdict}${d.sentence ? ` — ${d.sentence}` : ""}`);
    for (const c of d.changes) say(changeLine(c));
  }
  say(`result: ${GATE_WORDS[gate]} (exit ${code})`);
  return code;
}
