// The shared store for several replicas: one PostgreSQL database, one module per table group.
// The constructor is synchronous (openStore is); connecting and migrating happen once in the
// background and every call waits for them, so a bad URL surfaces on the first call.
import type { SQL } from "bun";
import type { Store } from "../store.ts";
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

export class PostgresStore implements Store {
  readonly sql: SQL;
  readonly ready: Promise<void>;
  /** Cluster dispatch operations (replica leases, per-instance orders); see dispatch/cluster-dispatcher.ts. */
  readonly cluster: PgDispatch;
  private readonly orgs: PgOrgs;
  private readonly tokens: PgTokens;
  private readonly readTokens: PgReadTokens;
  private readonly retention: PgRetention;
  private readonly captures: PgCaptures;
  private readonly profilers: PgProfilers;
  private readonly users: PgUsers;

  constructor(readonly url: string, opts: PostgresStoreOptions = {}) {
    this.sql = connect(url, opts.max ?? 20);
    this.ready = opts.migrate === false ? Promise.resolve() : migrate(this.sql).then(() => undefined);
    this.ready.catch(() => {}); // reported by the first call that awaits it
    this.orgs = new PgOrgs(this.sql);
    this.tokens = new PgTokens(this.sql);
    this.readTokens = new PgReadTokens(this.sql);
    this.retention = new PgRetention(this.sql);
    this.captures = new PgCaptures(this.sql);
    this.profilers = new PgProfilers(this.sql);
    this.users = new PgUsers(this.sql);
    this.cluster = new PgDispatch(this.sql, this.ready);
  }

  /** Waits for the schema, then calls through. */
  private via<A extends unknown[], R>(fn: (...a: A) => Promise<R>): (...a: A) => Promise<R> {
    return async (...a: A) => {
      await this.ready;
      return fn(...a);
    };
  }

  createOrg: Store["createOrg"] = this.via((...a) => this.orgs.createOrg(...a));
  getOrg: Store["getOrg"] = this.via((...a) => this.orgs.getOrg(...a));
  setProfilerEnabled: Store["setProfilerEnabled"] = this.via((...a) => this.orgs.setProfilerEnabled(...a));

  addCaptureToken: Store["addCaptureToken"] = this.via((...a) => this.tokens.addCaptureToken(...a));
  findCaptureToken: Store["findCaptureToken"] = this.via((...a) => this.tokens.findCaptureToken(...a));
  revokeCaptureToken: Store["revokeCaptureToken"] = this.via((...a) => this.tokens.revokeCaptureToken(...a));
  listCaptureTokens: Store["listCaptureTokens"] = this.via((...a) => this.tokens.listCaptureTokens(...a));
  addBootstrapToken: Store["addBootstrapToken"] = this.via((...a) => this.tokens.addBootstrapToken(...a));
  findBootstrapToken: Store["findBootstrapToken"] = this.via((...a) => this.tokens.findBootstrapToken(...a));

  addReadToken: Store["addReadToken"] = this.via((...a) => this.readTokens.addReadToken(...a));
  findReadToken: Store["findReadToken"] = this.via((...a) => this.readTokens.findReadToken(...a));
  revokeReadToken: Store["revokeReadToken"] = this.via((...a) => this.readTokens.revokeReadToken(...a));
  listReadTokens: Store["listReadTokens"] = this.via((...a) => this.readTokens.listReadTokens(...a));

  setRetentionPolicy: Store["setRetentionPolicy"] = this.via((...a) => this.retention.setRetentionPolicy(...a));
  getRetentionPolicy: Store["getRetentionPolicy"] = this.via((...a) => this.retention.getRetentionPolicy(...a));
  listRetentionOrgs: Store["listRetentionOrgs"] = this.via((...a) => this.retention.listRetentionOrgs(...a));
  listStoredProfiles: Store["listStoredProfiles"] = this.via((...a) => this.retention.listStoredProfiles(...a));
  pruneProfiles: Store["pruneProfiles"] = this.via((...a) => this.retention.pruneProfiles(...a));
  prunedAt: Store["prunedAt"] = this.via((...a) => this.retention.prunedAt(...a));
  storageUsage: Store["storageUsage"] = this.via((...a) => this.retention.storageUsage(...a));

  queueCapture: Store["queueCapture"] = this.via((...a) => this.captures.queueCapture(...a));
  getCapture: Store["getCapture"] = this.via((...a) => this.captures.getCapture(...a));
  listCaptures: Store["listCaptures"] = this.via((...a) => this.captures.listCaptures(...a));
  markCaptureRunning: Store["markCaptureRunning"] = this.via((...a) => this.captures.markCaptureRunning(...a));
  completeCapture: Store["completeCapture"] = this.via((...a) => this.captures.completeCapture(...a));

  enrolInstance: Store["enrolInstance"] = this.via((...a) => this.profilers.enrolInstance(...a));
  findInstance: Store["findInstance"] = this.via((...a) => this.profilers.findInstance(...a));
  saveProfile: Store["saveProfile"] = this.via((...a) => this.profilers.saveProfile(...a));
  getProfile: Store["getProfile"] = this.via((...a) => this.profilers.getProfile(...a));
  saveDiff: Store["saveDiff"] = this.via((...a) => this.profilers.saveDiff(...a));
  getDiff: Store["getDiff"] = this.via((...a) => this.profilers.getDiff(...a));
  listDiffSummaries: Store["listDiffSummaries"] = this.via((...a) => this.profilers.listDiffSummaries(...a));
  findBaseline: Store["findBaseline"] = this.via((...a) => this.profilers.findBaseline(...a));
  listPushedOfVersion: Store["listPushedOfVersion"] = this.via((...a) => this.profilers.listPushedOfVersion(...a));
  listInstances: Store["listInstances"] = this.via((...a) => this.profilers.listInstances(...a));
  queryCaptures: Store["queryCaptures"] = this.via((...a) => this.profilers.queryCaptures(...a));
  captureFacets: Store["captureFacets"] = this.via((...a) => this.profilers.captureFacets(...a));
  lastRequestBy: Store["lastRequestBy"] = this.via((...a) => this.profilers.lastRequestBy(...a));

  createUser: Store["createUser"] = this.via((...a) => this.users.createUser(...a));
  findUserCredentials: Store["findUserCredentials"] = this.via((...a) => this.users.findUserCredentials(...a));
  listUsers: Store["listUsers"] = this.via((...a) => this.users.listUsers(...a));
  createSession: Store["createSession"] = this.via((...a) => this.users.createSession(...a));
  findSession: Store["findSession"] = this.via((...a) => this.users.findSession(...a));
  deleteSession: Store["deleteSession"] = this.via((...a) => this.users.deleteSession(...a));
  pruneSessions: Store["pruneSessions"] = this.via((...a) => this.users.pruneSessions(...a));
  claimSignInAttempt: Store["claimSignInAttempt"] = this.via((...a) => this.users.claimSignInAttempt(...a));
  clearSignInFailures: Store["clearSignInFailures"] = this.via((...a) => this.users.clearSignInFailures(...a));

  async ping(): Promise<void> {
    await this.ready;
    await this.sql`SELECT 1`;
  }

  async close(): Promise<void> {
    await this.cluster.close();
    await this.sql.close({ timeout: 5 });
  }
}
