// Settings says whether each enrolled Profiler is connected now or offline, beside "last seen"
// (issue 34: a stopped Profiler showed a "last seen" and nothing saying it was gone). Compiled
// `runner server` processes, a Profiler made of the real enrolment, identity and tunnel client
// code, the page read as a signed-in member: on SQLite (one server, its dispatcher knows), and on
// PostgreSQL with the tunnel on one replica and Settings read from the other (the replicas' shared
// tunnel table knows).
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, postgresUrl } from "../helpers/postgres.ts";
import { admin, lastLine, startProfiler, startReplica, startServer, type Replica, type TestProfiler } from "../helpers/replicas.ts";
import { mustAdmin } from "../helpers/runner-admin.ts";
import { runnerCommand } from "../helpers/runner-bin.ts";
import { describeUnless } from "../helpers/skip.ts";
import { until } from "../helpers/until.ts";
import { Client } from "../unit/web-harness.ts";

const PASSWORD = "a long password for the settings page";
const dir = mkdtempSync(join(tmpdir(), "runner-presence-"));
const cleanup: Array<() => Promise<void> | void> = [];

afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

function replica(r: Replica): Replica {
  cleanup.push(async () => {
    r.proc.kill();
    await r.proc.exited;
  });
  return r;
}

/** The Tunnel cell of `instance`'s row on the Settings page, as `member` sees it. */
async function tunnelState(c: Client, instance: string): Promise<string> {
  const page = await (await c.get("/settings")).text();
  const row = new RegExp(`<tr><td><code>${instance}</code></td><td>profiler</td><td class="presence"><span class="state s-(\\w+)">`).exec(page);
  if (!row) throw new Error(`no row for ${instance} on Settings:\n${page.slice(page.indexOf("Enrolled Profilers"), page.indexOf("Enrolled Profilers") + 800)}`);
  return row[1]!;
}

async function connectedThenOffline(enrolAt: Replica, readAt: Replica, bootstrap: string, instance: string): Promise<void> {
  const c = new Client(readAt.url);
  expect((await c.signIn("acme", "owner@acme.test", PASSWORD)).status).toBe(303);
  const p: TestProfiler = await startProfiler({ dir: mkdtempSync(join(dir, "profiler-")), tenant: "acme", instanceId: instance, bootstrapToken: bootstrap, enrolUrl: enrolAt.url, tunnelUrl: enrolAt.tunnelUrl, onOrder: () => {} });
  cleanup.push(() => p.stop());
  expect(await until("Settings to say connected", 20_000, async () => ((await tunnelState(c, instance)) === "connected" ? true : null))).toBe(true);
  p.stop();
  expect(await until("Settings to say offline", 40_000, async () => ((await tunnelState(c, instance)) === "offline" ? true : null))).toBe(true);
}

describe("Settings: connected or offline", () => {
  test("SQLite, one server: connected while the tunnel is up, offline once the Profiler stops", async () => {
    const data = join(dir, "sqlite");
    mustAdmin(data, ["org", "create", "acme"]);
    mustAdmin(data, ["profiler", "enable", "acme"]);
    mustAdmin(data, ["user", "create", "acme", "owner@acme.test", "--role", "owner", "--password-stdin"], `${PASSWORD}\n`);
    const bootstrap = lastLine(mustAdmin(data, ["bootstrap-token", "create", "acme"]).trim());
    const server = replica(await startServer(["--data", data]));
    await connectedThenOffline(server, server, bootstrap, "node-sqlite");
  }, 120_000);
});

const pg = postgresUrl();
describeUnless(pg ? null : "no PostgreSQL to test against (RUNNER_TEST_DATABASE_URL)")("Settings: connected or offline across replicas", () => {
  test("PostgreSQL: the tunnel on replica A, Settings read on replica B", async () => {
    const db = await createTestDatabase(pg!, "presence");
    cleanup.push(() => db.drop());
    admin(db.url, "migrate");
    admin(db.url, "org", "create", "acme");
    admin(db.url, "profiler", "enable", "acme");
    const made = Bun.spawnSync([...runnerCommand(), "admin", "user", "create", "acme", "owner@acme.test", "--role", "owner", "--password-stdin"], {
      stdin: new Blob([`${PASSWORD}\n`]),
      env: { ...process.env, RUNNER_DATABASE_URL: db.url },
      stderr: "pipe",
    });
    expect(made.stderr.toString()).toBe("");
    const bootstrap = lastLine(admin(db.url, "bootstrap-token", "create", "acme"));
    const a = replica(await startReplica(db.url));
    const b = replica(await startReplica(db.url));
    await connectedThenOffline(a, b, bootstrap, "node-pg");
  }, 120_000);
});
