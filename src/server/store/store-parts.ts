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

const SERVED_BY = {
  orgs: ["createOrg", "getOrg", "setProfilerEnabled"],
  tokens: [
    "addCaptureToken",
    "findCaptureToken",
    "revokeCaptureToken",
    "listCaptureTokens",
    "addBootstrapToken",
    "findBootstrapToken",
  ],
  readTokens: ["addReadToken", "findReadToken", "revokeReadToken", "listReadTokens"],
  retention: [
    "setRetentionPolicy",
    "getRetentionPolicy",
    "listRetentionOrgs",
    "listStoredProfiles",
    "pruneProfiles",
    "prunedAt",
    "storageUsage",
  ],
  captures: ["queueCapture", "getCapture", "listCaptures", "markCaptureRunning", "completeCapture"],
  profilers: [
    "enrolInstance",
    "findInstance",
    "saveProfile",
    "getProfile",
    "saveDiff",
    "getDiff",
    "listDiffSummaries",
    "findBaseline",
    "listPushedOfVersion",
    "listInstances",
    "queryCaptures",
    "captureFacets",
    "lastRequestBy",
  ],
  users: [
    "createUser",
    "findUserCredentials",
    "listUsers",
    "createSession",
    "findSession",
    "deleteSession",
    "pruneSessions",
    "claimSignInAttempt",
    "clearSignInFailures",
  ],
} as const satisfies { [P in keyof StoreParts]: readonly (keyof StoreParts[P])[] };

/** The methods of StoreMethods that SERVED_BY leaves out: none, or tsc fails at `everyMethodServed`. */
type Unserved = Exclude<keyof StoreMethods, (typeof SERVED_BY)[keyof StoreParts][number]>;
const everyMethodServed: [Unserved] extends [never] ? true : Unserved = true;

type AnyMethod = (...a: unknown[]) => Promise<unknown>;

/**
 * Gives `store` each method of StoreMethods, calling the module that serves it; `around` wraps
 * each call (PostgresStore: wait for the schema first).
 */
export function forwardToParts(store: StoreMethods, parts: StoreParts, around: (call: AnyMethod) => AnyMethod = (call) => call): void {
  const target = store as unknown as Record<string, AnyMethod>;
  for (const part of Object.keys(SERVED_BY) as (keyof StoreParts)[]) {
    const module = parts[part] as unknown as Record<string, AnyMethod>;
    for (const name of SERVED_BY[part]) target[name] = around((...a) => module[name]!(...a));
  }
}
