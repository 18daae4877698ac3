// The capture request API on its own (`runner demo --api-only`, and the fallback where the full
// demo cannot run): a control plane on SQLite in a temp dir, an org with the Profiler enabled, a
// capture token, a capture queued over HTTP (and deduped when repeated), and the stored record.
// `--keep` leaves the server running.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exitAfterOutput } from "../exit-after-output.ts";
import { createLogger } from "../log.ts";
import { CAPTURE_TOKEN_PREFIX, generateToken, hashToken } from "../protocol/token-format.ts";
import { captureJson } from "../server/records/capture-json.ts";
import { startServer } from "../server/start-server.ts";
import { SqliteStore } from "../server/store/sqlite/sqlite-store.ts";

const say = (s = "") => process.stdout.write(`${s}\n`);
const step = (s: string) => say(`\n== ${s}`);

export async function apiWalkthrough(values: { keep: boolean }): Promise<number> {
  const data = mkdtempSync(join(tmpdir(), "runner-demo-"));
  const store = new SqliteStore(join(data, "runner.db"));
  // Quiet server logs so the walkthrough reads cleanly; RUNNER_LOG_LEVEL=info shows them.
  const logger = createLogger("server", process.env.RUNNER_LOG_LEVEL ?? "warn");
  const server = await startServer({ hostname: "127.0.0.1", port: 0, store, logger });
  const org = "acme";
  try {
    step(`control plane on ${server.url}, SQLite store at ${join(data, "runner.db")}`);
    say(`   (runner server --listen 127.0.0.1:${server.port} --data ${data})`);

    step(`organization "${org}" with the Profiler enabled`);
    await store.createOrg(org);
    await store.setProfilerEnabled(org, true);
    say(`   (runner admin --data ${data} org create ${org}; runner admin --data ${data} profiler enable ${org})`);

    step('capture token "ci-pipeline" (shown once; only its SHA-256 is stored)');
    const token = generateToken(CAPTURE_TOKEN_PREFIX);
    await store.addCaptureToken(org, "ci-pipeline", hashToken(token));
    say(`   ${token}`);

    const body = { workload: "checkout", version: "2.4.1", env: "staging" };
    const post = () =>
      fetch(`${server.url}/api/profiling/captures`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    step(`POST /api/profiling/captures ${JSON.stringify(body)}`);
    const first = await post();
    const accepted = (await first.json()) as { request_id: string };
    say(`   ${first.status} ${JSON.stringify(accepted)}`);

    step("the same request again while the first is in flight: deduped, not queued twice");
    const second = await post();
    say(`   ${second.status} ${JSON.stringify(await second.json())}`);

    step("without a token, and with a bad field");
    const anon = await fetch(`${server.url}/api/profiling/captures`, { method: "POST", body: JSON.stringify(body) });
    say(`   ${anon.status} ${JSON.stringify(await anon.json())}`);
    const bad = await fetch(`${server.url}/api/profiling/captures?token=${token}`, {
      method: "POST",
      body: JSON.stringify({ ...body, duration_sec: 900 }),
    });
    say(`   ${bad.status} ${JSON.stringify(await bad.json())}`);

    step(`the stored record (runner admin --data ${data} captures show ${accepted.request_id} --json)`);
    const record = await store.getCapture(accepted.request_id);
    say(JSON.stringify(record && captureJson(record), null, 2).replace(/^/gm, "   "));
    say("\n   It stays queued until a Profiler enrols and drains it: a 202 means queued, not captured.");

    // The token stays out of every command's arguments, which ps shows to every local user:
    // `export` and `printf` are shell builtins, curl reads the header from stdin.
    step("by hand, with curl or runner capture");
    say(`   export RUNNER_CAPTURE_TOKEN=${token}`);
    say(`   printf 'Authorization: Bearer %s\\n' "$RUNNER_CAPTURE_TOKEN" | curl -i -X POST ${server.url}/api/profiling/captures \\`);
    say(`     -H @- -H "Content-Type: application/json" -d '{"workload":"checkout","version":"2.4.2"}'`);
    say(`   runner capture --url ${server.url} --workload checkout --version 2.4.3`);
    if (values.keep) {
      say(`\nserver keeps running on ${server.url} (Ctrl-C to stop; data in ${data})`);
      process.once("SIGINT", async () => {
        await server.stop();
        await store.close();
        await exitAfterOutput(0);
      });
      return -1;
    }
    say("\n(run `npm run demo -- --api-only --keep` to keep the server up and try the curl command)");
    return 0;
  } finally {
    if (!values.keep) {
      await server.stop();
      await store.close();
      rmSync(data, { recursive: true, force: true });
    }
  }
}
