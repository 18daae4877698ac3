// Members and sessions (migration 3). Sessions are stored by the SHA-256 of the cookie value only.
import type { Database } from "bun:sqlite";
import type { AppSession, Role, User, UserCredentials, UserStore } from "../user-store.ts";
import { StoreError } from "../types.ts";
import { requireOrgId } from "./orgs.ts";
import { isUniqueViolation } from "./rows.ts";

interface UserRow {
  id: number;
  org_id: number;
  org_name: string;
  email: string;
  role: Role;
  password_hash: string;
  created_at: number;
}

const SELECT_USER = `SELECT u.*, o.name AS org_name FROM users u JOIN orgs o ON o.id = u.org_id`;

const toUser = (r: UserRow): User => ({ id: r.id, orgId: r.org_id, orgName: r.org_name, email: r.email, role: r.role, createdAt: r.created_at });

export class SqliteUsers implements UserStore {
  constructor(private readonly db: Database) {}

  async createUser(orgName: string, email: string, role: Role, passwordHash: string, now = Date.now()): Promise<User> {
    const orgId = requireOrgId(this.db, orgName);
    try {
      const { id } = this.db
        .query("INSERT INTO users (org_id, email, role, password_hash, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id")
        .get(orgId, email, role, passwordHash, now) as { id: number };
      return toUser(this.db.query(`${SELECT_USER} WHERE u.id = ?`).get(id) as UserRow);
    } catch (err) {
      if (isUniqueViolation(err)) throw new StoreError(`organization "${orgName}" already has a member ${email}`, "conflict");
      throw err;
    }
  }

  async findUserCredentials(orgName: string, email: string): Promise<UserCredentials | null> {
    const r = this.db.query(`${SELECT_USER} WHERE o.name = ? AND u.email = ?`).get(orgName, email) as UserRow | null;
    return r ? { ...toUser(r), passwordHash: r.password_hash } : null;
  }

  async listUsers(orgName: string): Promise<User[]> {
    const orgId = requireOrgId(this.db, orgName);
    return (this.db.query(`${SELECT_USER} WHERE u.org_id = ? ORDER BY u.email`).all(orgId) as UserRow[]).map(toUser);
  }

  async createSession(userId: number, sessionHash: string, expiresAt: number, now = Date.now()): Promise<void> {
    this.db.query("INSERT INTO sessions (hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)").run(sessionHash, userId, now, expiresAt);
  }

  async findSession(sessionHash: string, now: number): Promise<AppSession | null> {
    const r = this.db
      .query(`SELECT s.expires_at, u.*, o.name AS org_name FROM sessions s JOIN users u ON u.id = s.user_id JOIN orgs o ON o.id = u.org_id
               WHERE s.hash = ? AND s.expires_at > ?`)
      .get(sessionHash, now) as (UserRow & { expires_at: number }) | null;
    return r ? { user: toUser(r), expiresAt: r.expires_at } : null;
  }

  async deleteSession(sessionHash: string): Promise<void> {
    this.db.query("DELETE FROM sessions WHERE hash = ?").run(sessionHash);
  }

  async pruneSessions(now: number): Promise<number> {
    return this.db.query("DELETE FROM sessions WHERE expires_at <= ?").run(now).changes;
  }

  async claimSignInAttempt(org: string, email: string, at: number, since: number, limit: number): Promise<number | null> {
    // IMMEDIATE: the write lock is taken before the count is read, so another process on the same
    // file cannot count the same rows and insert too (a deferred transaction would read first).
    return this.db.transaction((): number | null => {
      this.db.query("DELETE FROM sign_in_failures WHERE at <= ?").run(since);
      const rows = this.db.query("SELECT at FROM sign_in_failures WHERE org = ? AND email = ? ORDER BY at").all(org, email) as { at: number }[];
      if (rows.length >= limit) return rows[rows.length - limit]!.at;
      this.db.query("INSERT INTO sign_in_failures (org, email, at) VALUES (?, ?, ?)").run(org, email, at);
      return null;
    }).immediate();
  }

  async clearSignInFailures(org: string, email: string): Promise<void> {
    this.db.query("DELETE FROM sign_in_failures WHERE org = ? AND email = ?").run(org, email);
  }
}
