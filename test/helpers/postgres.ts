// PostgreSQL for tests: RUNNER_TEST_DATABASE_URL names a server the tests may create databases on
// (.ci/run starts one). Without it the PostgreSQL tests skip, except on CI (RUNNER_REQUIRE_LIVE=1).
import { SQL } from "bun";

export function postgresUrl(): string | null {
  const url = process.env.RUNNER_TEST_DATABASE_URL;
  if (!url && process.env.RUNNER_REQUIRE_LIVE === "1") throw new Error("RUNNER_REQUIRE_LIVE=1 but RUNNER_TEST_DATABASE_URL is not set");
  return url || null;
}

/** Creates an empty database on that server; returns its URL and a drop function. */
export async function createTestDatabase(baseUrl: string, label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `runner_${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`.replace(/[^a-z0-9_]/g, "_");
  const admin = new SQL(baseUrl, { max: 1 });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.close();
  const u = new URL(baseUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const a = new SQL(baseUrl, { max: 1 });
      await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.close();
    },
  };
}
