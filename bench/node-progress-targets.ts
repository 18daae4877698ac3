// The Node.js twin of python-progress-targets.ts: long-running CPU-bound node targets (no flag)
// reporting their progress in the same format, for the paired method of
// bench/ptop-python-overhead.ts (`--target node`, `--target node+c`): what ptop's V8 walker costs a
// busy Node service.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnProgressTargets, type ProgressTargets } from "./python-progress-targets.ts";

// handle() -> four steps -> work(), the steps inlined into handle() by TurboFan as in a service's
// handler; one round per turn of the event loop (no loop for V8 to replace on the stack), ~0.1 ms of
// small-integer work. A line every `every` seconds: CLOCK_MONOTONIC (process.hrtime), the process's
// CPU seconds, rounds.
const SCRIPT = `process.title = process.argv[2];
const end = process.hrtime.bigint() + BigInt(Math.round(Number(process.argv[3]) * 1e9));
const every = BigInt(Math.round(Number(process.argv[4]) * 1e9));
function work(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i) & 0xffff; return s; }
function parseOrder() { return work(2500); }
function applyDiscounts() { return work(2000); }
function computeTax() { return work(2500); }
function formatReceipt() { return work(3000); }
function handle() { return parseOrder() + applyDiscounts() + computeTax() + formatReceipt(); }
let rounds = 0, sink = 0, due = process.hrtime.bigint();
function next() {
  for (let k = 0; k < 8; k++) sink = (sink + handle()) & 0xffff;
  rounds++;
  const now = process.hrtime.bigint();
  if (now >= due) {
    const u = process.cpuUsage();
    process.stdout.write((Number(now) / 1e9).toFixed(6) + " " + ((u.user + u.system) / 1e6).toFixed(6) + " " + rounds + "\\n");
    due = now + every;
  }
  if (now < end) setImmediate(next);
}
next();
`;

/** Starts \`count\` node targets titled \`name\` (their comm, so ptop finds them by name) as uid 65534;
 *  each ends by itself after \`lifetime\` seconds should the bench die. */
export function startNodeTargets(dir: string, name: string, count: number, lifetime: number, every = 0.1): ProgressTargets {
  const script = join(dir, `${name}.js`);
  writeFileSync(script, SCRIPT);
  chmodSync(script, 0o644);
  return spawnProgressTargets(["/usr/bin/node", script, name, String(lifetime), String(every)], count);
}
