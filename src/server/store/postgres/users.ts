// Members and sessions (migration 3). Sessions are stored by the SHA-256 of the cookie value only.
import type { SQL } from "bun";
import type { AppSession, Role, User, UserCredentials, UserStore } from "../user-store.ts";
import { StoreError } from "../types.ts";
import { requireOrgId } from "./orgs.ts";
import { isUniqueViolation } from "./rows.ts";

interface UserRow {
  id: string;
  org_id: string;
  org_name: string;
  email: string;
  role: Role;
  password_hash: string;
  created_at: string;
}

/** First key of the per-account sign-in advisory locks (two-key form: this space, hash of org/email). */
const SIGN_IN_LOCK_SPACE = 0x7369676e; // "sign"

const SELECT_USER = `SELECT u.*, o.name AS org_name FROM users u JOIN orgs o ON o.id = u.org_id`;

const toUser = (r: UserRow): User => ({
  id: Number(r.id),
  orgId: Number(r.org_id),
  orgName: r.org_name,
  email: r.email,
  role: r.role,
  createdAt: Number(r.created_at),
});

export class PgUsers implements UserStore {
  constructor(private readonly sql: SQL) {}

  async createUser(orgName: string, email: string, role: Role, passwordHash: string, now = Date.now()): Promise<User> {
    const orgId = await requireOrgId(this.sql, orgName);
    try {
      const [{ id }] = await this.sql`
        INSERT INTO users (org_id, email, role, password_hash, created_at) VALUES (${orgId}, ${email}, ${role}, ${passwordHash}, ${now}) RETURNING id`;
      const [row] = await this.sql.unsafe(`${SELECT_USER} WHERE u.id = $1`, [id]);
      return toUser(row as UserRow);
    } catch (err) {
      if (isUniqueViolation(err)) throw new StoreError(`organization "${orgName}" already has a member ${email}`, "conflict");
      throw err;
    }
  }

  async findUserCredentials(orgName: string, email: string): Promise<UserCredentials | null> {
    const [r] = await this.sql.unsafe(`${SELECT_USER} WHERE o.name = $1 AND lower(u.email) = lower($2)`, [orgName, email]);
    return r ? { ...toUser(r as UserRow), passwordHash: (r as UserRow).password_hash } : null;
  }

  async listUsers(orgName: string): Promise<User[]> {
    const orgId = await requireOrgId(this.sql, orgName);
    const rows = await this.sql.unsafe(`${SELECT_USER} WHERE u.org_id = $1 ORDER BY lower(u.email) COLLATE "C", u.email COLLATE "C"`, [orgId]);
    return (rows as UserRow[]).map(toUser);
  }

  async createSession(userId: number, sessionHash: string, expiresAt: number, now = Date.now()): Promise<void> {
    await this.sql`INSERT INTO sessions (hash, user_id, created_at, expires_at) VALUES (${sessionHash}, ${userId}, ${now}, ${expiresAt})`;
  }

  async findSession(sessionHash: string, now: number): Promise<AppSession | null> {
    const [r] = await this.sql`
      SELECT s.expires_at, u.*, o.name AS org_name FROM sessions s JOIN users u ON u.id = s.user_id JOIN orgs o ON o.id = u.org_id
       WHERE s.hash = ${sessionHash} AND s.expires_at > ${now}`;
    return r ? { user: toUser(r as UserRow), expiresAt: Number(r.expires_at) } : null;
  }

  async deleteSession(sessionHash: string): Promise<void> {
    await this.sql`DELETE FROM sessions WHERE hash = ${sessionHash}`;
  }

  async pruneSessions(now: number): Promise<number> {
    return (await this.sql`DELETE FROM sessions WHERE expires_at <= ${now}`).count;
  }

  async claimSignInAttempt(org: string, email: string, at: number, since: number, limit: number): Promise<number | null> {
    return this.sql.begin(async (tx) => {
      // A transaction-scoped advisory lock per account serializes every claim on it, whichever
      // replica makes it, so the count below sees every committed attempt. (A hash collision
      // between two accounts only makes them wait for each other.)
      await tx`SELECT pg_advisory_xact_lock(${SIGN_IN_LOCK_SPACE}::int, hashtext(${org}::text || '/' || ${email}::text))`;
      // Forget old attempts of every account without waiting: rows another claim is deleting are
      // skipped (that claim removes them), so two sweeps never wait on each other or deadlock.
      await tx`DELETE FROM sign_in_failures WHERE ctid IN (SELECT ctid FROM sign_in_failures WHERE at <= ${since} FOR UPDATE SKIP LOCKED)`;
      const rows: { at: string | number }[] = await tx`
        SELECT at FROM sign_in_failures WHERE org = ${org} AND email = ${email} AND at > ${since} ORDER BY at`;
      if (rows.length >= limit) return Number(rows[rows.length - limit]!.at);
      await tx`INSERT INTO sign_in_failures (org, email, at) VALUES (${org}, ${email}, ${at})`;
      return null;
    });
  }

  async clearSignInFailures(org: string, email: string): Promise<void> {
    await this.sql`DELETE FROM sign_in_failures WHERE org = ${org} AND email = ${email}`;
  }
}
