// `runner demo` on a machine where it can run everything (root, BPF, a C compiler): the main job
// end to end. A control plane on SQLite, a Profiler as an unprivileged user with ptop under
// setcap, the sample service at version 1 and then version 2 (which carries a real regression in
// apply_discounts), head + replicate captures queued through the HTTP API with a capture token,
// and the diff that names the regressed function, with its HTML flame graph.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { instrumentationSummary } from "../server/records/capture-json.ts";
import type { RecordInstrumentation } from "../server/store/types.ts";
import { signedPercent as pct } from "../witness/index.ts";
import { badgeText, summarise } from "../server/web/list-verdicts.ts";
import { OneMachine } from "./one-machine.ts";
import { buildShop, DEMO_WORKLOAD, REGRESSED_FUNCTION } from "./workload.ts";

const say = (s = "") => process.stdout.write(`${s}\n`);
const DIFF_HTML = "diff.html";
const step = (s: string) => say(`\n== ${s}`);

export interface EndToEndOptions {
  collector: string;
  durationSec: number;
  warmupSec: number;
  replicates: number;
  keep: boolean;
}

interface DiffChange {
  function: string;
  axis: string;
  kind: string;
  flagged: boolean;
  relative_change: number;
  interval: [number, number];
  confirmation: string | null;
}

export async function runEndToEndDemo(o: EndToEndOptions): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "runner-demo-"));
  const m = new OneMachine({ dir, collectorSource: o.collector, targets: [DEMO_WORKLOAD], logLevel: "info" });
  try {
    step("control plane (SQLite), organization with the Profiler enabled, capture and bootstrap tokens");
    await m.setUp();
    say(`   API ${m.apiUrl}   tunnel ${m.tunnelUrl}   data ${m.dataDir}`);
    say(`   ptop ${m.collector} with file capabilities ${"cap_bpf,cap_perfmon,cap_sys_ptrace,cap_dac_read_search,cap_sys_admin+ep"}`);

    step("Profiler: boots as user nobody with no capabilities, enrols, opens the tunnel");
    await m.startProfiler("demo-node");
    await m.waitProfilerUp("demo-node");
    say("   tunnel up");

    const versions: Array<{ v: 1 | 2; label: string }> = [
      { v: 1, label: "1.0.0" },
      { v: 2, label: "1.1.0" },
    ];
    let lastHead = "";
    for (const { v, label } of versions) {
      step(`version ${label} of "${DEMO_WORKLOAD}"${v === 2 ? " (ships a regression)" : ""}`);
      const bin = await buildShop(dir, v);
      const proc = m.startWorkload(bin, ["2"]);
      await Bun.sleep(500);
      for (let i = 0; i <= o.replicates; i++) {
        const kind = i === 0 ? "head" : "replicate";
        const q = await m.queue({ workload: DEMO_WORKLOAD, version: label, env: "demo", kind, duration_sec: o.durationSec, warmup_sec: o.warmupSec });
        if (q.status !== 202) throw new Error(`capture request refused: ${q.status} ${JSON.stringify(q.body)}`);
        const id = String(q.body.request_id);
        if (kind === "head") lastHead = id;
        const started = Date.now();
        const r = await m.waitDone(id, (o.durationSec + o.warmupSec + 60) * 1000, (rec) => progress(`${kind.padEnd(9)} …${id.slice(-8)}`, String(rec.status), started, o.durationSec + o.warmupSec));
        // The record's own phrase ("fully instrumented" or "N of M probes (why)"), as every screen says it.
        const inst = r.instrumentation as RecordInstrumentation | null;
        progressDone(`${kind.padEnd(9)} …${id.slice(-8)}  ${String(r.outcome)}  by ${String(r.requester)}  ${inst ? instrumentationSummary(inst) : ""}${r.reason ? `  (${String(r.reason)})` : ""}`);
        if (r.outcome !== "pushed") throw new Error(`capture ${id} ended ${String(r.outcome)}: ${String(r.reason)}`);
      }
      proc.kill("SIGTERM");
      await proc.exited;
    }

    step(`what changed between 1.0.0 and 1.1.0 (diff of head ${lastHead})`);
    const html = join(dir, DIFF_HTML);
    await m.admin("captures", "diff", lastHead, "--html", html);
    const diff = JSON.parse(await m.admin("captures", "diff", lastHead, "--json")) as {
      note: string;
      diff: { verdict: string; reason: string; normalisation: string; changes: DiffChange[] } | null;
    };
    say(`   ${diff.note}`);
    if (!diff.diff) throw new Error("no diff was computed");
    say(`   verdict: ${diff.diff.verdict} — ${diff.diff.reason} (normalisation: ${diff.diff.normalisation})`);
    say(`   Profiling list badge: ${badgeText(summarise(JSON.stringify(diff.diff)))}`);
    // The causes: each function whose own work changed (its callers, which moved with it, are secondary).
    const flagged = diff.diff.changes.filter((c) => c.flagged);
    for (const c of flagged.slice(0, 8)) {
      say(`   ${c.function.padEnd(24)} ${c.axis.padEnd(8)} ${c.kind.padEnd(9)} ${pct(c.relative_change).padStart(8)}  [${pct(c.interval[0])}, ${pct(c.interval[1])}]  ${c.confirmation ?? ""}`);
    }
    const named = flagged.some((c) => c.function === REGRESSED_FUNCTION && c.relative_change > 0);
    say(named ? `\n   regressed function found: ${REGRESSED_FUNCTION}` : `\n   ${REGRESSED_FUNCTION} was not flagged this time (see the table above)`);
    say(`   differential flame graph: ${html}`);
    if (o.keep) await sayHowToBrowse(m, dir);
    else say(`   (the store, tokens and the collector copy with its capabilities are removed; --keep keeps them)`);
    return named ? 0 : 1;
  } catch (err) {
    say(`\ndemo failed: ${(err as Error).message}`);
    say(m.logs.slice(-20).join("\n"));
    return 1;
  } finally {
    await m.tearDown();
    // A copy of ptop holding five capabilities, executable by nobody, and live tokens must not
    // outlast the demo in /tmp: only the flame graph the demo points at stays.
    if (!o.keep) for (const f of readdirSync(dir)) if (f !== DIFF_HTML) rmSync(join(dir, f), { recursive: true, force: true });
  }
}

/** --keep: a member to sign in with, and the command that serves what was kept. */
async function sayHowToBrowse(m: OneMachine, dir: string): Promise<void> {
  const email = `demo@${m.org}.example`;
  const password = Buffer.from(crypto.getRandomValues(new Uint8Array(12))).toString("base64url");
  await m.adminWithStdin(`${password}\n`, "user", "create", m.org, email, "--role", "owner", "--password-stdin");
  say(`   everything is kept in ${dir}; to browse it in the app:`);
  say(`     sudo ${m.runner} server --listen 127.0.0.1:8080 --data ${m.dataDir}`);
  say(`     then open http://127.0.0.1:8080/ and sign in: organization ${m.org}, email ${email}, password ${password}`);
}

const tty = process.stdout.isTTY;
let lastPrinted = 0;
function progress(what: string, state: string, started: number, windowSec: number): void {
  const elapsed = (Date.now() - started) / 1000;
  const width = 20;
  const filled = Math.min(width, Math.round((elapsed / Math.max(windowSec, 1)) * width));
  const line = `   ${what}  [${"#".repeat(filled)}${".".repeat(width - filled)}] ${elapsed.toFixed(0)}s ${state}`;
  if (tty) process.stdout.write(`\r${line}\x1b[K`);
  else if (Date.now() - lastPrinted > 5000) {
    lastPrinted = Date.now();
    say(line);
  }
}
function progressDone(line: string): void {
  if (tty) process.stdout.write(`\r\x1b[K`);
  say(`   ${line}`);
}
