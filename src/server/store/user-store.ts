// Organization members and their app sessions. Part of `Store` (store.ts), same contract rules:
// every method async, so the PostgreSQL store can implement the same group.
export type Role = "owner" | "admin" | "member";
export const ROLES: readonly Role[] = ["owner", "admin", "member"];

export interface User {
  id: number;
  orgId: number;
  orgName: string;
  email: string;
  role: Role;
  createdAt: number;
}

export interface UserCredentials extends User {
  /** Bun.password hash (argon2id); never leaves the users module. */
  passwordHash: string;
}

export interface AppSession {
  user: User;
  expiresAt: number;
}

export interface UserStore {
  /** Emails are unique per organization (case-insensitive). conflict when taken, not_found for an unknown org. */
  createUser(orgName: string, email: string, role: Role, passwordHash: string, now?: number): Promise<User>;
  /** The member with this email in this org, with the password hash; null when none. */
  findUserCredentials(orgName: string, email: string): Promise<UserCredentials | null>;
  listUsers(orgName: string): Promise<User[]>;
  /** Stores a session by the hash of its cookie value. */
  createSession(userId: number, sessionHash: string, expiresAt: number, now?: number): Promise<void>;
  /** The unexpired session with this hash and its member; null otherwise. */
  findSession(sessionHash: string, now: number): Promise<AppSession | null>;
  deleteSession(sessionHash: string): Promise<void>;
  /** Drops expired sessions; returns how many. */
  pruneSessions(now: number): Promise<number>;
  /**
   * One sign-in attempt for (org, email), checked and counted in one atomic step, so attempts in
   * flight at once (on any replica) cannot all pass the check before any is counted. When fewer
   * than `limit` attempts are recorded after `since`, records this one at `at` and returns null;
   * otherwise records nothing and returns the time of the attempt whose ageing out frees the next
   * slot. An attempt counts as failed until the caller clears the account after a success. Keyed
   * by the org and email as typed (normalised by the caller), whether or not they exist: unknown
   * accounts are throttled like real ones. Attempts at or before `since` are forgotten.
   */
  claimSignInAttempt(org: string, email: string, at: number, since: number, limit: number): Promise<number | null>;
  /** Forgets every attempt recorded for (org, email): the account has just signed in. */
  clearSignInFailures(org: string, email: string): Promise<void>;
}
