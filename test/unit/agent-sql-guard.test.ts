// The read-only SQL guard used by the Athena and CloudTrail Lake operations.
import { describe, expect, test } from "bun:test";
import { assertReadOnlySql, stripSqlNoise } from "../../src/agent/connectors/aws/sql-guard.ts";
import { AgentError } from "../../src/agent/errors.ts";

function verdict(sql: string): string {
  try {
    assertReadOnlySql(sql, "Athena");
    return "ok";
  } catch (e) {
    if (e instanceof AgentError && e.code === "invalid_query") return e.message;
    throw e;
  }
}

describe("read-only SQL guard", () => {
  test("reads are accepted", () => {
    for (const sql of [
      "SELECT 1",
      "select * from t where a = 'x' order by b desc",
      "WITH x AS (SELECT 1 AS a) SELECT a FROM x",
      "SHOW TABLES IN logs",
      "DESCRIBE alb_logs",
      "EXPLAIN SELECT 1",
      "SELECT 1;",
      "  -- a comment\n  SELECT 1",
      "SELECT 'it''s; DROP TABLE x' AS s",
      'SELECT "update" FROM "delete"',
      "SELECT `insert` FROM t",
      "SELECT created_at, updated_by, deleted FROM t", // keywords only as whole words
      "SHOW CREATE TABLE alb_logs", // prints the DDL of an existing table; runs none
      "show create view logs.errors_v",
    ]) {
      expect(verdict(sql)).toBe("ok");
    }
  });

  test("writes, DDL and tricks are refused with the keyword named", () => {
    expect(verdict("INSERT INTO t VALUES (1)")).toContain("INSERT is DML");
    expect(verdict("create external table t (a int) location 's3://b/'")).toContain("CREATE is DDL");
    expect(verdict("SELECT 1; SELECT 2")).toContain("single statement");
    expect(verdict("SELECT 1 /* x */; /* y */ DROP TABLE t")).toContain("single statement");
    expect(verdict("")).toContain("empty");
    expect(verdict("-- only a comment")).toContain("empty");
    expect(verdict("GRANT SELECT ON t TO u")).toContain("GRANT is DDL");
    expect(verdict("EXECUTE stmt USING 1")).toContain("EXECUTE is DML");
    expect(verdict("SELECT 'unterminated")).toContain("unterminated");
    expect(verdict("USE logs")).toContain("starts with USE");
    // Only the CREATE right after SHOW, and only for TABLE/VIEW, is a read.
    expect(verdict("SHOW CREATE TABLE t; DROP TABLE t")).toContain("single statement");
    expect(verdict("SHOW CREATE TABLE t AS SELECT 1 INSERT")).toContain("INSERT is DML");
    expect(verdict("SHOW TABLES CREATE TABLE t (a int)")).toContain("CREATE is DDL");
    expect(verdict("SHOW CREATE DATABASE logs")).toContain("CREATE is DDL");
  });

  test("noise stripping keeps structure but hides literals and comments", () => {
    expect(stripSqlNoise("SELECT 'a;b' -- c\n, \"d\" /* e */ FROM t")).toBe("SELECT  ''   \n,  ident    FROM t");
  });
});
