// Both stores (sqlite/, postgres/) are one module per table group; `Store` is their union
// (store.ts). Which module serves which method is written once, here, and each store forwards
// through it instead of repeating the list.
import type { ProfilerStore } from "./profiler-store.ts";
import type { ReadTokenStore } from "./read-token-store.ts";
import type { RetentionStore } from "./retention-store.ts";
import type { CaptureStore, OrgStore, Store, TokenStore } from "./store.ts";
import type { UserStore } from "./user-store.ts";

/** A store's table-group modules. */
export interface StoreParts {
  orgs: OrgStore;
  tokens: TokenStore;
  readTokens: ReadTokenStore;
  retention: RetentionStore;
  captures: CaptureStore;
  profilers: ProfilerStore;
  users: UserStore;
}

/** What the modules serve: every method of `Store` but the store's own ping and close. */
export type StoreMethods = Omit<Store, "ping" | "close">;

/** The parts that have method M. */
type PartsWith<M extends PropertyKey> = { [P in keyof StoreParts]: M extends keyof StoreParts[P] ? P : never }[keyof StoreParts];

/** The module that serves each method: tsc fails on a method left out or given to a module without it. */
const PART_OF: { [M in keyof StoreMethods]: PartsWith<M> } = {
  createOrg: "orgs",
  getOrg: "orgs",
  setProfilerEnabled: "orgs",
  addCaptureToken: "tokens",
  findCaptureToken: "tokens",
  revokeCaptureToken: "tokens",
  listCaptureTokens: "tokens",
  addBootstrapToken: "tokens",
  findBootstrapToken: "tokens",
  addReadToken: "readTokens",
  findReadToken: "readTokens",
  revokeReadToken: "readTokens",
  listReadTokens: "readTokens",
  setRetentionPolicy: "retention",
  getRetentionPolicy: "retention",
  listRetentionOrgs: "retention",
  listStoredProfiles: "retention",
  pruneProfiles: "retention",
  prunedAt: "retention",
  storageUsage: "retention",
  queueCapture: "captures",
  getCapture: "captures",
  listCaptures: "captures",
  markCaptureRunning: "captures",
  completeCapture: "captures",
  enrolInstance: "profilers",
  findInstance: "profilers",
  saveProfile: "profilers",
  getProfile: "profilers",
  saveDiff: "profilers",
  getDiff: "profilers",
  listDiffSummaries: "profilers",
  findBaseline: "profilers",
  listPushedOfVersion: "profilers",
  listInstances: "profilers",
  queryCaptures: "profilers",
  captureFacets: "profilers",
  lastRequestBy: "profilers",
  createUser: "users",
  findUserCredentials: "users",
  listUsers: "users",
  createSession: "users",
  findSession: "users",
  deleteSession: "users",
  pruneSessions: "users",
  claimSignInAttempt: "users",
  clearSignInFailures: "users",
};

type AnyMethod = (...a: unknown[]) => Promise<unknown>;

/**
 * Gives `store` each method of StoreMethods, calling the module that serves it; `around` wraps
 * each call (PostgresStore: wait for the schema first).
 */
export function forwardToParts(store: StoreMethods, parts: StoreParts, around: (call: AnyMethod) => AnyMethod = (call) => call): void {
  const target = store as unknown as Record<string, AnyMethod>;
  for (const [name, part] of Object.entries(PART_OF)) {
    const module = parts[part] as unknown as Record<string, AnyMethod>;
    target[name] = around((...a) => module[name]!(...a));
  }
}
