// The shared store for several replicas: one PostgreSQL database, one module per table group.
// The constructor is synchronous (openStore is); connecting and migrating happen once in the
// background and every call waits for them, so a bad URL surfaces on the first call.
import type { SQL } from "bun";
import type { Store } from "../store.ts";
import { forwardToParts, type StoreMethods } from "../store-parts.ts";
import { PgCaptures } from "./captures.ts";
import { connect, migrate } from "./database.ts";
import { PgDispatch } from "./dispatch.ts";
import { PgOrgs } from "./orgs.ts";
import { PgProfilers } from "./profilers.ts";
import { PgReadTokens } from "./read-tokens.ts";
import { PgRetention } from "./retention.ts";
import { PgTokens } from "./tokens.ts";
import { PgUsers } from "./users.ts";

export interface PostgresStoreOptions {
  /** Pool size per process. */
  max?: number;
  /** Apply pending migrations on open (default true; `runner admin migrate` does it explicitly). */
  migrate?: boolean;
}

export interface PostgresStore extends StoreMethods {} // forwarded to the modules (store-parts.ts)

export class PostgresStore implements Store {
  readonly sql: SQL;
  readonly ready: Promise<void>;
  /** Cluster dispatch operations (replica leases, per-instance orders); see dispatch/cluster-dispatcher.ts. */
  readonly cluster: PgDispatch;

  constructor(readonly url: string, opts: PostgresStoreOptions = {}) {
    this.sql = connect(url, opts.max ?? 20);
    this.ready = opts.migrate === false ? Promise.resolve() : migrate(this.sql).then(() => undefined);
    this.ready.catch(() => {}); // reported by the first call that awaits it
    const parts = {
      orgs: new PgOrgs(this.sql),
      tokens: new PgTokens(this.sql),
      readTokens: new PgReadTokens(this.sql),
      retention: new PgRetention(this.sql),
      captures: new PgCaptures(this.sql),
      profilers: new PgProfilers(this.sql),
      users: new PgUsers(this.sql),
    };
    // Every call waits for the schema, then calls through.
    forwardToParts(this, parts, (call) => async (...a) => {
      await this.ready;
      return call(...a);
    });
    this.cluster = new PgDispatch(this.sql, this.ready);
  }

  async ping(): Promise<void> {
    await this.ready;
    await this.sql`SELECT 1`;
  }

  async close(): Promise<void> {
    await this.cluster.close();
    await this.sql.close({ timeout: 5 });
  }
}
