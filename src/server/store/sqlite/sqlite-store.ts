// The embedded store: one SQLite file (DIR/runner.db), one module per table group, and the queue
// reads of the in-process dispatcher that serves it (one server).
import type { Database } from "bun:sqlite";
import type { LocalQueue } from "../../dispatch/local-store.ts";
import type { Store } from "../store.ts";
import { forwardToParts, type StoreMethods } from "../store-parts.ts";
import { SqliteCaptures } from "./captures.ts";
import { openDatabase } from "./database.ts";
import { SqliteDispatch } from "./dispatch.ts";
import { SqliteOrgs } from "./orgs.ts";
import { SqliteProfilers } from "./profilers.ts";
import { SqliteReadTokens } from "./read-tokens.ts";
import { SqliteRetention } from "./retention.ts";
import { SqliteTokens } from "./tokens.ts";
import { SqliteUsers } from "./users.ts";

export interface SqliteStore extends StoreMethods {} // forwarded to the modules (store-parts.ts)

export class SqliteStore implements Store, LocalQueue {
  readonly db: Database;
  private readonly dispatch: SqliteDispatch;

  constructor(readonly path: string) {
    this.db = openDatabase(path);
    forwardToParts(this, {
      orgs: new SqliteOrgs(this.db),
      tokens: new SqliteTokens(this.db),
      readTokens: new SqliteReadTokens(this.db),
      retention: new SqliteRetention(this.db),
      captures: new SqliteCaptures(this.db),
      profilers: new SqliteProfilers(this.db),
      users: new SqliteUsers(this.db),
    });
    this.dispatch = new SqliteDispatch(this.db);
  }

  listQueuedCaptures: LocalQueue["listQueuedCaptures"] = (...a) => this.dispatch.listQueuedCaptures(...a);
  requeueRunningCaptures: LocalQueue["requeueRunningCaptures"] = (...a) => this.dispatch.requeueRunningCaptures(...a);

  async ping(): Promise<void> {
    this.db.query("SELECT 1").get();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
