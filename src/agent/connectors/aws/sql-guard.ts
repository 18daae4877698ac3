import { AgentError } from "../../errors.ts";

// Athena and CloudTrail Lake queries start "executions", which the read-only policy allows; the
// query text itself must therefore be read-only, and is checked before anything is sent.
// Accepted: one statement that starts with SELECT, WITH, SHOW, DESCRIBE/DESC or EXPLAIN, and no
// DDL or DML keyword anywhere outside string literals, quoted identifiers and comments (a WITH
// can lead into an INSERT; EXPLAIN ANALYZE can execute its statement). The one exception is the
// CREATE of `SHOW CREATE TABLE|VIEW`, which returns the DDL text of an existing object and changes
// nothing; any other DDL/DML word later in such a statement is still refused.

const READ_STARTS = new Set(["SELECT", "WITH", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "VALUES"]);

const DDL = ["CREATE", "DROP", "ALTER", "TRUNCATE", "RENAME", "MSCK", "REPAIR", "GRANT", "REVOKE", "VACUUM", "OPTIMIZE"];
const DML = ["INSERT", "UPDATE", "DELETE", "MERGE", "UNLOAD", "UPSERT", "CALL", "EXECUTE", "PREPARE", "DEALLOCATE", "LOAD", "COPY"];
const FORBIDDEN = new Map<string, "DDL" | "DML">([...DDL.map((k) => [k, "DDL"] as const), ...DML.map((k) => [k, "DML"] as const)]);

/** Removes comments, string literals and quoted identifiers, keeping word boundaries. */
export function stripSqlNoise(sql: string): string {
  let out = "";
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === "-" && next === "-") {
      const end = sql.indexOf("\n", i);
      i = end === -1 ? sql.length : end;
      out += " ";
    } else if (c === "/" && next === "*") {
      const end = sql.indexOf("*/", i + 2);
      if (end === -1) throw new AgentError("invalid_query", "query has an unterminated /* comment");
      i = end + 2;
      out += " ";
    } else if (c === "'" || c === '"' || c === "`") {
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) throw new AgentError("invalid_query", `query has an unterminated ${c} quote`);
        if (sql[j] === c) {
          if (sql[j + 1] === c) j += 2; // doubled quote escapes itself
          else break;
        } else j++;
      }
      i = j + 1;
      out += c === "'" ? " '' " : " ident ";
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** `SHOW CREATE TABLE t` / `SHOW CREATE VIEW v`: a read of the statement that made the object. */
function isShowCreate(words: string[]): boolean {
  return words[0] === "SHOW" && words[1] === "CREATE" && (words[2] === "TABLE" || words[2] === "VIEW");
}

export function assertReadOnlySql(sql: string, service: string): void {
  const body = stripSqlNoise(sql).trim().replace(/;\s*$/, "");
  if (!body) throw new AgentError("invalid_query", `${service} query is empty`);
  if (body.includes(";")) throw new AgentError("invalid_query", `${service} query must be a single statement`);
  const words = body.toUpperCase().match(/[A-Z_][A-Z0-9_]*/g) ?? [];
  for (const [i, w] of words.entries()) {
    if (i === 1 && isShowCreate(words)) continue; // SHOW CREATE TABLE|VIEW prints DDL text, it runs none
    const kind = FORBIDDEN.get(w);
    if (kind) {
      throw new AgentError(
        "invalid_query",
        `${service} query rejected: ${w} is ${kind}; the Agent runs read-only queries only (SELECT, WITH, SHOW, DESCRIBE, EXPLAIN)`,
      );
    }
  }
  const first = words[0] ?? "";
  if (!READ_STARTS.has(first)) {
    throw new AgentError("invalid_query", `${service} query rejected: it starts with ${first || "nothing"}; only SELECT, WITH, SHOW, DESCRIBE and EXPLAIN are run`);
  }
}
