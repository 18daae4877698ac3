// The sign-in lockout under concurrency, against the compiled `runner server`: 300 wrong passwords
// for one account sent at once. The limit is 10 per 15 minutes, so at most 10 may have their
// password checked (401); every other one is refused before hashing (429). Before the check and
// the count were one step, all 300 passed the check while the first ones were still hashing.
//   SQLite: two server processes on one database file.
//   PostgreSQL: two replicas on one database (each with its own connection pool).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestDatabase, postgresUrl } from "../helpers/postgres.ts";
import { startServer, type Replica } from "../helpers/replicas.ts";
import { runnerCommand } from "../helpers/runner-bin.ts";

setDefaultTimeout(120_000);

const ATTEMPTS = 300;
const LIMIT = 10;
const PASSWORD = "correct horse battery staple 42";

function admin(storeArgs: string[], args: string[], stdin?: string): string {
  const r = Bun.spawnSync([...runnerCommand(), "admin", ...storeArgs, ...args], {
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  if (r.exitCode !== 0) throw new Error(`admin ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.toString();
}

async function signIn(base: string, email: string, password: string): Promise<number> {
  const res = await fetch(`${base}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ org: "acme", email, password, next: "/profiling" }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Fires every attempt at once, alternating between the servers; returns the count per status. */
async function storm(servers: Replica[], email: string): Promise<Map<number, number>> {
  const statuses = await Promise.all(
    Array.from({ length: ATTEMPTS }, (_, i) => signIn(servers[i % servers.length]!.url, email, `wrong password ${i}`)),
  );
  const counts = new Map<number, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  return counts;
}

function lockoutHolds(storeArgs: () => string[]) {
  let servers: Replica[] = [];
  beforeAll(async () => {
    admin(storeArgs(), ["org", "create", "acme"]);
    admin(storeArgs(), ["user", "create", "acme", "a@acme.test", "--role", "member", "--password-stdin"], PASSWORD);
    admin(storeArgs(), ["user", "create", "acme", "b@acme.test", "--role", "member", "--password-stdin"], PASSWORD);
    servers = await Promise.all([0, 1].map(() => startServer(storeArgs())));
  });
  afterAll(async () => {
    for (const s of servers) s.proc.kill();
    await Promise.all(servers.map((s) => s.proc.exited));
  });

  test(`${ATTEMPTS} concurrent wrong passwords: at most ${LIMIT} checked (401), the rest refused (429)`, async () => {
    const counts = await storm(servers, "a@acme.test");
    const checked = counts.get(401) ?? 0;
    expect({ checked, refused: counts.get(429) ?? 0, other: ATTEMPTS - checked - (counts.get(429) ?? 0) }).toEqual({
      checked: LIMIT,
      refused: ATTEMPTS - LIMIT,
      other: 0,
    });
    // The right password is refused too until the window passes, on either server.
    for (const s of servers) expect(await signIn(s.url, "A@acme.test", PASSWORD)).toBe(429);
    // Another member of the same org is not locked out.
    expect(await signIn(servers[1]!.url, "b@acme.test", PASSWORD)).toBe(303);
  });

  test("an unknown account is throttled the same way", async () => {
    const counts = await storm(servers, "nobody@acme.test");
    expect(counts.get(401) ?? 0).toBe(LIMIT);
    expect(counts.get(429) ?? 0).toBe(ATTEMPTS - LIMIT);
  });
}

describe("sign-in lockout under concurrency: SQLite (two servers, one file)", () => {
  const dir = mkdtempSync(join(tmpdir(), "runner-signin-storm-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  lockoutHolds(() => ["--data", dir]);
});

const base = postgresUrl();
(base ? describe : describe.skip)("sign-in lockout under concurrency: PostgreSQL (two replicas)", () => {
  let db: { url: string; drop(): Promise<void> } | undefined;
  beforeAll(async () => {
    db = await createTestDatabase(base!, "signin_storm");
    admin(["--database-url", db.url], ["migrate"]);
  });
  afterAll(async () => {
    await db?.drop();
  });
  lockoutHolds(() => ["--database-url", db!.url]);
});
