// The embedded store: one SQLite file (DIR/runner.db), one module per table group, and the queue
// reads of the in-process dispatcher that serves it (one server).
import type { Database } from "bun:sqlite";
import type { LocalQueue } from "../../dispatch/local-store.ts";
import type { Store } from "../store.ts";
import { SqliteCaptures } from "./captures.ts";
import { openDatabase } from "./database.ts";
import { SqliteDispatch } from "./dispatch.ts";
import { SqliteOrgs } from "./orgs.ts";
import { SqliteProfilers } from "./profilers.ts";
import { SqliteReadTokens } from "./read-tokens.ts";
import { SqliteRetention } from "./retention.ts";
import { SqliteTokens } from "./tokens.ts";
import { SqliteUsers } from "./users.ts";

export class SqliteStore implements Store, LocalQueue {
  readonly db: Database;
  private readonly orgs: SqliteOrgs;
  private readonly tokens: SqliteTokens;
  private readonly readTokens: SqliteReadTokens;
  private readonly retention: SqliteRetention;
  private readonly captures: SqliteCaptures;
  private readonly profilers: SqliteProfilers;
  private readonly users: SqliteUsers;
  private readonly dispatch: SqliteDispatch;

  constructor(readonly path: string) {
    this.db = openDatabase(path);
    this.orgs = new SqliteOrgs(this.db);
    this.tokens = new SqliteTokens(this.db);
    this.readTokens = new SqliteReadTokens(this.db);
    this.retention = new SqliteRetention(this.db);
    this.captures = new SqliteCaptures(this.db);
    this.profilers = new SqliteProfilers(this.db);
    this.users = new SqliteUsers(this.db);
    this.dispatch = new SqliteDispatch(this.db);
  }

  createOrg: Store["createOrg"] = (...a) => this.orgs.createOrg(...a);
  getOrg: Store["getOrg"] = (...a) => this.orgs.getOrg(...a);
  setProfilerEnabled: Store["setProfilerEnabled"] = (...a) => this.orgs.setProfilerEnabled(...a);

  addCaptureToken: Store["addCaptureToken"] = (...a) => this.tokens.addCaptureToken(...a);
  findCaptureToken: Store["findCaptureToken"] = (...a) => this.tokens.findCaptureToken(...a);
  revokeCaptureToken: Store["revokeCaptureToken"] = (...a) => this.tokens.revokeCaptureToken(...a);
  listCaptureTokens: Store["listCaptureTokens"] = (...a) => this.tokens.listCaptureTokens(...a);
  addBootstrapToken: Store["addBootstrapToken"] = (...a) => this.tokens.addBootstrapToken(...a);
  findBootstrapToken: Store["findBootstrapToken"] = (...a) => this.tokens.findBootstrapToken(...a);

  addReadToken: Store["addReadToken"] = (...a) => this.readTokens.addReadToken(...a);
  findReadToken: Store["findReadToken"] = (...a) => this.readTokens.findReadToken(...a);
  revokeReadToken: Store["revokeReadToken"] = (...a) => this.readTokens.revokeReadToken(...a);
  listReadTokens: Store["listReadTokens"] = (...a) => this.readTokens.listReadTokens(...a);

  setRetentionPolicy: Store["setRetentionPolicy"] = (...a) => this.retention.setRetentionPolicy(...a);
  getRetentionPolicy: Store["getRetentionPolicy"] = (...a) => this.retention.getRetentionPolicy(...a);
  listRetentionOrgs: Store["listRetentionOrgs"] = (...a) => this.retention.listRetentionOrgs(...a);
  listStoredProfiles: Store["listStoredProfiles"] = (...a) => this.retention.listStoredProfiles(...a);
  pruneProfiles: Store["pruneProfiles"] = (...a) => this.retention.pruneProfiles(...a);
  prunedAt: Store["prunedAt"] = (...a) => this.retention.prunedAt(...a);
  storageUsage: Store["storageUsage"] = (...a) => this.retention.storageUsage(...a);

  queueCapture: Store["queueCapture"] = (...a) => this.captures.queueCapture(...a);
  getCapture: Store["getCapture"] = (...a) => this.captures.getCapture(...a);
  listCaptures: Store["listCaptures"] = (...a) => this.captures.listCaptures(...a);
  markCaptureRunning: Store["markCaptureRunning"] = (...a) => this.captures.markCaptureRunning(...a);
  completeCapture: Store["completeCapture"] = (...a) => this.captures.completeCapture(...a);

  enrolInstance: Store["enrolInstance"] = (...a) => this.profilers.enrolInstance(...a);
  findInstance: Store["findInstance"] = (...a) => this.profilers.findInstance(...a);
  saveProfile: Store["saveProfile"] = (...a) => this.profilers.saveProfile(...a);
  getProfile: Store["getProfile"] = (...a) => this.profilers.getProfile(...a);
  saveDiff: Store["saveDiff"] = (...a) => this.profilers.saveDiff(...a);
  getDiff: Store["getDiff"] = (...a) => this.profilers.getDiff(...a);
  listDiffSummaries: Store["listDiffSummaries"] = (...a) => this.profilers.listDiffSummaries(...a);
  findBaseline: Store["findBaseline"] = (...a) => this.profilers.findBaseline(...a);
  listPushedOfVersion: Store["listPushedOfVersion"] = (...a) => this.profilers.listPushedOfVersion(...a);
  listInstances: Store["listInstances"] = (...a) => this.profilers.listInstances(...a);
  queryCaptures: Store["queryCaptures"] = (...a) => this.profilers.queryCaptures(...a);
  captureFacets: Store["captureFacets"] = (...a) => this.profilers.captureFacets(...a);
  lastRequestBy: Store["lastRequestBy"] = (...a) => this.profilers.lastRequestBy(...a);

  createUser: Store["createUser"] = (...a) => this.users.createUser(...a);
  findUserCredentials: Store["findUserCredentials"] = (...a) => this.users.findUserCredentials(...a);
  listUsers: Store["listUsers"] = (...a) => this.users.listUsers(...a);
  createSession: Store["createSession"] = (...a) => this.users.createSession(...a);
  findSession: Store["findSession"] = (...a) => this.users.findSession(...a);
  deleteSession: Store["deleteSession"] = (...a) => this.users.deleteSession(...a);
  pruneSessions: Store["pruneSessions"] = (...a) => this.users.pruneSessions(...a);
  claimSignInAttempt: Store["claimSignInAttempt"] = (...a) => this.users.claimSignInAttempt(...a);
  clearSignInFailures: Store["clearSignInFailures"] = (...a) => this.users.clearSignInFailures(...a);

  listQueuedCaptures: LocalQueue["listQueuedCaptures"] = (...a) => this.dispatch.listQueuedCaptures(...a);
  requeueRunningCaptures: LocalQueue["requeueRunningCaptures"] = (...a) => this.dispatch.requeueRunningCaptures(...a);

  async ping(): Promise<void> {
    this.db.query("SELECT 1").get();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
