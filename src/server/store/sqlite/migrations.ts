// Schema history of the SQLite store, applied in order and recorded in PRAGMA user_version.
//
// To change the schema, APPEND a migration (never edit or reorder a shipped one):
//   { version: <last + 1>, name: "what it adds", sql: `CREATE TABLE …; CREATE INDEX …;` }
// Each runs in its own IMMEDIATE transaction together with the user_version bump, so a crash
// leaves the database at the previous version. Issue 6 (enrolments, dispatch answers, diffs)
// adds its tables as version 2, 3, … here and its methods in a new file beside captures.ts.
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "orgs, capture and bootstrap tokens, capture requests",
    sql: `
      CREATE TABLE orgs (
        id               INTEGER PRIMARY KEY,
        name             TEXT NOT NULL UNIQUE,
        profiler_enabled INTEGER NOT NULL DEFAULT 0 CHECK (profiler_enabled IN (0, 1)),
        created_at       INTEGER NOT NULL
      );
      CREATE TABLE capture_tokens (
        id         INTEGER PRIMARY KEY,
        org_id     INTEGER NOT NULL REFERENCES orgs(id),
        name       TEXT NOT NULL,
        hash       TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      );
      -- one live token per name: the name is what the capture record shows as requester
      CREATE UNIQUE INDEX capture_tokens_active_name ON capture_tokens(org_id, name) WHERE revoked_at IS NULL;
      CREATE TABLE bootstrap_tokens (
        id         INTEGER PRIMARY KEY,
        org_id     INTEGER NOT NULL REFERENCES orgs(id),
        hash       TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      );
      -- a capture request and, once it ran, its record (outcome, reason, instrumentation)
      CREATE TABLE capture_requests (
        request_id      TEXT PRIMARY KEY,
        org_id          INTEGER NOT NULL REFERENCES orgs(id),
        workload        TEXT NOT NULL,
        version         TEXT NOT NULL,
        env             TEXT NOT NULL,
        kind            TEXT NOT NULL CHECK (kind IN ('head', 'replicate')),
        duration_sec    REAL NOT NULL,
        warmup_sec      REAL NOT NULL,
        requester       TEXT NOT NULL,
        status          TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done')),
        outcome         TEXT CHECK (outcome IN ('pushed', 'nothing_to_push', 'failed')),
        reason          TEXT,
        instrumentation TEXT,
        dedupe_key      TEXT NOT NULL,
        created_at      INTEGER NOT NULL,
        updated_at      INTEGER NOT NULL
      );
      CREATE INDEX capture_requests_org_created ON capture_requests(org_id, created_at);
      -- at most one identical request in flight per org, enforced by the database itself
      CREATE UNIQUE INDEX capture_requests_in_flight ON capture_requests(org_id, dedupe_key)
        WHERE status IN ('queued', 'running');
    `,
  },
  {
  version: 2,
  name: "enrolled instances, pushed profiles, diffs",
  sql: `
    CREATE TABLE instances (
      org_id           INTEGER NOT NULL REFERENCES orgs(id),
      instance_id      TEXT NOT NULL,
      class            TEXT NOT NULL CHECK (class IN ('profiler', 'agent')),
      public_key       TEXT NOT NULL,
      enrolled_at      INTEGER NOT NULL,
      last_enrolled_at INTEGER NOT NULL,
      PRIMARY KEY (org_id, instance_id)
    );
    CREATE TABLE profiles (
      request_id  TEXT PRIMARY KEY REFERENCES capture_requests(request_id),
      instance_id TEXT NOT NULL,
      profile_gz  BLOB NOT NULL,
      created_at  INTEGER NOT NULL
    );
    CREATE TABLE diffs (
      request_id       TEXT PRIMARY KEY REFERENCES capture_requests(request_id),
      compared_with    TEXT,
      compared_version TEXT,
      note             TEXT NOT NULL,
      verdict          TEXT,
      json             TEXT,
      html             TEXT,
      created_at       INTEGER NOT NULL
    );
    CREATE INDEX capture_requests_status ON capture_requests(status, created_at);
    CREATE INDEX capture_requests_version ON capture_requests(org_id, workload, env, version, kind);
  `,
},
  {
    version: 3,
    name: "organization members and app sessions (web app)",
    sql: `
      CREATE TABLE users (
        id            INTEGER PRIMARY KEY,
        org_id        INTEGER NOT NULL REFERENCES orgs(id),
        email         TEXT NOT NULL COLLATE NOCASE,
        role          TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
        password_hash TEXT NOT NULL,
        created_at    INTEGER NOT NULL,
        UNIQUE (org_id, email)
      );
      -- only the SHA-256 of the cookie value is kept
      CREATE TABLE sessions (
        hash       TEXT PRIMARY KEY,
        user_id    INTEGER NOT NULL REFERENCES users(id),
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX sessions_expires ON sessions(expires_at);
      -- the Profiling page filters by workload and env, newest first
      CREATE INDEX capture_requests_org_workload_env ON capture_requests(org_id, workload, env, created_at);
      CREATE INDEX profiles_instance ON profiles(instance_id, created_at);
    `,
  },
  {
    version: 4,
    name: "failed sign-ins shared by every replica (was per process); the Settings page's per-token last request",
    sql: `
      CREATE TABLE sign_in_failures (
        org   TEXT NOT NULL,
        email TEXT NOT NULL,
        at    INTEGER NOT NULL
      );
      CREATE INDEX sign_in_failures_key ON sign_in_failures(org, email, at);
      CREATE INDEX sign_in_failures_at ON sign_in_failures(at);
      -- Settings shows each token's last request: max(created_at) by (org, requester) in one seek
      CREATE INDEX capture_requests_requester ON capture_requests(org_id, requester, created_at);
    `,
  },
  {
    version: 5,
    name: "read tokens (a pipeline reads its captures' status, outcome and verdict)",
    sql: `
      CREATE TABLE read_tokens (
        id         INTEGER PRIMARY KEY,
        org_id     INTEGER NOT NULL REFERENCES orgs(id),
        name       TEXT NOT NULL,
        hash       TEXT NOT NULL UNIQUE,
        workloads  TEXT,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      );
      CREATE UNIQUE INDEX read_tokens_active_name ON read_tokens(org_id, name) WHERE revoked_at IS NULL;
    `,
  },
  {
    version: 6,
    name: "retention: per-org policy, and the captures whose profile it pruned",
    sql: `
      CREATE TABLE retention_policies (
        org_id         INTEGER PRIMARY KEY REFERENCES orgs(id),
        head_days      INTEGER CHECK (head_days >= 1),
        replicate_days INTEGER CHECK (replicate_days >= 1),
        keep_versions  INTEGER NOT NULL CHECK (keep_versions >= 1),
        updated_at     INTEGER NOT NULL
      );
      CREATE TABLE pruned_captures (
        request_id TEXT PRIMARY KEY REFERENCES capture_requests(request_id),
        org_id     INTEGER NOT NULL REFERENCES orgs(id),
        bytes      INTEGER NOT NULL,
        pruned_at  INTEGER NOT NULL
      );
      CREATE INDEX pruned_captures_org ON pruned_captures(org_id);
    `,
  },
];
