// The AWS connector's documented behaviours, against the local AWS fake with the real SDK:
// query validation before anything is sent, the results-bucket/Glue diagnosis, the QuickSight
// "old policy" diagnosis, credential modes, the secret store, and no credential in any output.
import { setDefaultTimeout, afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { Catalog } from "../../src/agent/catalog.ts";
import { awsConnector } from "../../src/agent/connectors/aws.ts";
import { createAgentContext, type Env } from "../../src/agent/context.ts";
import { enforceAndRun } from "../../src/agent/enforce.ts";
import { refusal } from "../helpers/agent-refusal.ts";
import { runHealth } from "../../src/agent/health.ts";
import { type AwsFake, awsError, awsOk, startAwsFake } from "../fixtures/fakes/aws.ts";
import { runnerCommand } from "../helpers/runner-bin.ts";
import { agentFailure, runnerAgent as agentRun } from "../helpers/runner-agent.ts";

// Some tests start the executable; from sources each start loads every SDK client, which takes
// seconds on a loaded machine. This is a budget, not a measurement.
setDefaultTimeout(60_000);

const KEY_ID = "AKIAFAKEDIAGNOSTIC01";
const SECRET = "diagnostic-secret-key-do-not-print-0001";
let fake: AwsFake;
const catalog = new Catalog([awsConnector]);
const staticEnv = (): Env => ({ RUNNER_AWS_CRED_MODE: "static", RUNNER_AWS_ACCESS_KEY_ID: KEY_ID, RUNNER_AWS_SECRET_ACCESS_KEY: SECRET, RUNNER_AWS_ENDPOINT_URL: fake.url, AWS_EC2_METADATA_DISABLED: "true" });
const run = (name: string, args: unknown, env: Env = staticEnv()) => enforceAndRun(catalog, name, args, createAgentContext(env, pino({ level: "silent" })));

beforeAll(() => {
  fake = startAwsFake();
});
afterEach(() => {
  fake.respond.length = 0;
  fake.calls.length = 0;
  expect(fake.violations).toEqual([]);
});
afterAll(() => fake.stop());

describe("Athena and CloudTrail Lake queries are validated before anything is sent", () => {
  const rejected: [string, RegExp][] = [
    ["CREATE TABLE t AS SELECT 1", /CREATE is DDL/],
    ["DROP TABLE alb_logs", /DROP is DDL/],
    ["ALTER TABLE t ADD PARTITION (dt='x')", /ALTER is DDL/],
    ["MSCK REPAIR TABLE t", /MSCK is DDL/],
    ["INSERT INTO t SELECT * FROM u", /INSERT is DML/],
    ["WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x", /INSERT is DML/],
    ["DELETE FROM t WHERE a = 1", /DELETE is DML/],
    ["UPDATE t SET a = 1", /UPDATE is DML/],
    ["MERGE INTO t USING u ON t.id = u.id WHEN MATCHED THEN DELETE", /MERGE is DML/],
    ["UNLOAD (SELECT 1) TO 's3://b/' WITH (format = 'PARQUET')", /UNLOAD is DML/],
    ["SELECT 1; DROP TABLE t", /single statement/],
    ["select 1 /* unterminated", /unterminated/],
    ["VACUUM t", /VACUUM is DDL/],
  ];
  for (const [sql, why] of rejected) {
    test(`Athena refuses: ${sql}`, async () => {
      const e = await refusal(run("aws.athena.query", { sql }));
      expect(e.code).toBe("invalid_query");
      expect(e.message).toMatch(why);
      expect(fake.calls).toEqual([]);
    });
  }

  test("CloudTrail Lake refuses DML the same way", async () => {
    const e = await refusal(run("aws.cloudtrail.lakeQuery", { sql: "DELETE FROM eds WHERE 1=1" }));
    expect(e.code).toBe("invalid_query");
    expect(fake.calls).toEqual([]);
  });

  test("keywords inside strings, quoted identifiers and comments do not count", async () => {
    fake.respond.push((c) => {
      if (c.action === "athena:StartQueryExecution") return awsOk(c, { QueryExecutionId: "q-ok" });
      if (c.action === "athena:GetQueryExecution") return awsOk(c, { QueryExecution: { QueryExecutionId: "q-ok", Status: { State: "SUCCEEDED" } } });
      if (c.action === "athena:GetQueryResults")
        return awsOk(c, { ResultSet: { ResultSetMetadata: { ColumnInfo: [{ Name: "status" }, { Name: "n" }] }, Rows: [{ Data: [{ VarCharValue: "status" }, { VarCharValue: "n" }] }, { Data: [{ VarCharValue: "500" }, { VarCharValue: "3" }] }] } });
      return undefined;
    });
    const sql = `-- DROP TABLE x\nSELECT "delete", 'insert into t' AS drop_note, status, count(*) AS n FROM alb_logs /* update */ GROUP BY status;`;
    const out = (await run("aws.athena.query", { sql, database: "logs", outputLocation: "s3://results/" })) as { columns: string[]; rows: string[][] };
    expect(out.columns).toEqual(["status", "n"]);
    expect(out.rows).toEqual([["500", "3"]]);
    const start = fake.calls.find((c) => c.action === "athena:StartQueryExecution")!;
    expect(start.input.QueryString).toBe(sql);
  });
});

describe("Athena without results-bucket or Glue permission is explained", () => {
  const resultsHint = /cannot use the query results bucket.*Grant s3:GetObject, s3:PutObject and s3:ListBucket on the results bucket/;
  const glueHint = /cannot read the Glue catalog.*Grant glue:GetTable, glue:GetDatabase and glue:GetPartitions/;

  test("query FAILED with S3 access denied", async () => {
    fake.respond.push((c) => {
      if (c.action === "athena:StartQueryExecution") return awsOk(c, { QueryExecutionId: "q-s3" });
      if (c.action === "athena:GetQueryExecution")
        return awsOk(c, { QueryExecution: { QueryExecutionId: "q-s3", Status: { State: "FAILED", StateChangeReason: "Access denied when writing output to url: s3://my-results/q-s3.csv . Please ensure you are allowed to access the S3 bucket." } } });
      return undefined;
    });
    const e = await refusal(run("aws.athena.query", { sql: "SELECT 1" }));
    expect(e.code).toBe("permission");
    expect(e.message).toMatch(resultsHint);
    expect(e.message).toContain("(s3://my-results/q-s3.csv)");
    expect(e.message).toContain("not in the read-only policy because those resources are yours");
    expect(e.message).not.toContain("glue:");
  });

  test("query FAILED for lack of glue:GetTable", async () => {
    fake.respond.push((c) => {
      if (c.action === "athena:StartQueryExecution") return awsOk(c, { QueryExecutionId: "q-glue" });
      if (c.action === "athena:GetQueryExecution")
        return awsOk(c, { QueryExecution: { QueryExecutionId: "q-glue", Status: { State: "FAILED", StateChangeReason: "Insufficient permissions to execute the query. User: arn:aws:iam::123456789012:user/runner is not authorized to perform: glue:GetTable on resource: arn:aws:glue:us-east-1:123456789012:table/logs/alb_logs" } } });
      return undefined;
    });
    const e = await refusal(run("aws.athena.query", { sql: "SELECT * FROM alb_logs" }));
    expect(e.code).toBe("permission");
    expect(e.message).toMatch(glueHint);
    expect(e.missing).toEqual(["glue:GetTable"]);
    expect(e.message).not.toContain("results bucket");
  });

  test("StartQueryExecution refused because the output bucket cannot be verified", async () => {
    fake.respond.push((c) => (c.action === "athena:StartQueryExecution" ? awsError(c, "InvalidRequestException", "Unable to verify/create output bucket my-results") : undefined));
    const e = await refusal(run("aws.athena.query", { sql: "SELECT 1" }));
    expect(e.code).toBe("permission");
    expect(e.message).toMatch(resultsHint);
  });

  test("an unrelated failure is not blamed on storage", async () => {
    fake.respond.push((c) => {
      if (c.action === "athena:StartQueryExecution") return awsOk(c, { QueryExecutionId: "q-syn" });
      if (c.action === "athena:GetQueryExecution") return awsOk(c, { QueryExecution: { QueryExecutionId: "q-syn", Status: { State: "FAILED", StateChangeReason: "line 1:8: Column 'nope' cannot be resolved" } } });
      return undefined;
    });
    const e = await refusal(run("aws.athena.query", { sql: "SELECT nope" }));
    expect(e.code).toBe("upstream");
    expect(e.message).toContain("Column 'nope' cannot be resolved");
  });

  test("a query still running at the timeout is stopped (our own execution only)", async () => {
    fake.respond.push((c) => {
      if (c.action === "athena:StartQueryExecution") return awsOk(c, { QueryExecutionId: "q-slow" });
      if (c.action === "athena:GetQueryExecution") return awsOk(c, { QueryExecution: { QueryExecutionId: "q-slow", Status: { State: "RUNNING" } } });
      return undefined;
    });
    const e = await refusal(run("aws.athena.query", { sql: "SELECT 1", timeoutSeconds: 1 }));
    expect(e.message).toContain("did not finish within 1s");
    const stop = fake.calls.find((c) => c.action === "athena:StopQueryExecution");
    expect(stop?.input).toEqual({ QueryExecutionId: "q-slow" });
  });
});

describe("AccessDenied diagnostics", () => {
  test("QuickSight AccessDenied on an old policy: add the BI statement, do not rotate", async () => {
    fake.respond.push((c) => (c.service === "quicksight" ? awsError(c, "AccessDeniedException", `User: arn:aws:iam::123456789012:user/runner is not authorized to perform: ${c.action}`, 401) : undefined));
    for (const [name, args] of [
      ["aws.quicksight.listDashboards", { AwsAccountId: "123456789012" }],
      ["aws.quicksight.describeDashboard", { AwsAccountId: "123456789012", DashboardId: "d" }],
    ] as const) {
      const e = await refusal(run(name, args));
      expect(e.code).toBe("permission");
      expect(e.message).toContain("add the BI statement; do not rotate the credential");
      expect(e.message).toContain("BiQuickSightSomenteLeitura");
    }
  });

  test("other AccessDenied names the action and the statement that grants it", async () => {
    fake.respond.push((c) => (c.action === "ec2:DescribeVpcs" ? awsError(c, "UnauthorizedOperation", "You are not authorized to perform this operation.", 403) : undefined));
    const e = await refusal(run("aws.ec2.describeVpcs", {}));
    expect(e.code).toBe("permission");
    expect(e.message).toContain('lacks ec2:DescribeVpcs, granted by statement "Compute"');
    expect(e.message).not.toContain("rotate");
  });

  test("a rejected credential is reported as the credential, not the policy", async () => {
    fake.respond.push((c) => (c.action === "sts:GetCallerIdentity" ? awsError(c, "InvalidClientTokenId", "The security token included in the request is invalid.", 403) : undefined));
    const e = await refusal(run("aws.sts.getCallerIdentity", {}));
    expect(e.message).toContain("AWS does not accept the credential itself");
  });
});

describe("credential modes and the secret store", () => {
  test("static mode signs with the configured key", async () => {
    await run("aws.sts.getCallerIdentity", {});
    expect(fake.calls[0]!.authorization).toContain(`Credential=${KEY_ID}/`);
  });

  test("static mode without keys says which variables are missing, not_configured", async () => {
    const e = await refusal(run("aws.sts.getCallerIdentity", {}, { RUNNER_AWS_CRED_MODE: "static", RUNNER_AWS_ENDPOINT_URL: fake.url }));
    expect(e.code).toBe("not_configured");
    expect(e.message).toContain("RUNNER_AWS_ACCESS_KEY_ID and RUNNER_AWS_SECRET_ACCESS_KEY");
  });

  test("chain mode uses the workload's standard credentials", async () => {
    await run("aws.sts.getCallerIdentity", {}, { RUNNER_AWS_CRED_MODE: "chain", AWS_ACCESS_KEY_ID: "AKIAFAKECHAIN0000001", AWS_SECRET_ACCESS_KEY: "chain-secret-00000000000", AWS_EC2_METADATA_DISABLED: "true", RUNNER_AWS_ENDPOINT_URL: fake.url });
    expect(fake.calls[0]!.authorization).toContain("Credential=AKIAFAKECHAIN0000001/");
  });

  test("chain mode never falls back to SSO login or profile files", async () => {
    // A shared credentials file and an SSO profile that the SDK's default chain would pick up.
    const dir = mkdtempSync(join(tmpdir(), "agent-aws-profile-"));
    writeFileSync(join(dir, "credentials"), "[dev]\naws_access_key_id = AKIAFAKEPROFILE00001\naws_secret_access_key = profile-secret-000000000\n");
    writeFileSync(join(dir, "config"), "[profile dev-sso]\nsso_start_url = https://example.awsapps.com/start\nsso_region = us-east-1\nsso_account_id = 123456789012\nsso_role_name = Dev\n");
    for (const profile of ["dev", "dev-sso"]) {
      const e = await refusal(
        run("aws.sts.getCallerIdentity", {}, { RUNNER_AWS_CRED_MODE: "chain", AWS_PROFILE: profile, AWS_SHARED_CREDENTIALS_FILE: join(dir, "credentials"), AWS_CONFIG_FILE: join(dir, "config"), AWS_EC2_METADATA_DISABLED: "true", RUNNER_AWS_ENDPOINT_URL: fake.url }),
      );
      expect(e.code).toBe("not_configured");
    }
    expect(fake.calls).toEqual([]);
  });

  test("an unknown mode is refused", async () => {
    const e = await refusal(run("aws.sts.getCallerIdentity", {}, { RUNNER_AWS_CRED_MODE: "sso", RUNNER_AWS_ENDPOINT_URL: fake.url }));
    expect(e.message).toContain("RUNNER_AWS_CRED_MODE must be one of static, chain");
  });

  test("secret store mode reads the static keys from <prefix>/<NAME> with GetSecretValue", async () => {
    const store: Record<string, string> = { "runner/prod/RUNNER_AWS_ACCESS_KEY_ID": "AKIAFAKESTORED000001", "runner/prod/RUNNER_AWS_SECRET_ACCESS_KEY": "stored-secret-0000000000" };
    fake.respond.push((c) => {
      if (c.action !== "secretsmanager:GetSecretValue") return undefined;
      const id = c.input.SecretId as string;
      return store[id] ? awsOk(c, { Name: id, SecretString: store[id] }) : awsError(c, "ResourceNotFoundException", "not found");
    });
    await run("aws.sts.getCallerIdentity", {}, {
      RUNNER_SECRET_STORE_MODE: "aws-secrets-manager",
      RUNNER_SECRET_PREFIX: "runner/prod/",
      AWS_ACCESS_KEY_ID: "AKIAFAKESTOREID00001",
      AWS_SECRET_ACCESS_KEY: "store-identity-secret-0000",
      AWS_EC2_METADATA_DISABLED: "true",
      RUNNER_AWS_CRED_MODE: "static",
      RUNNER_AWS_ENDPOINT_URL: fake.url,
    });
    const reads = fake.calls.filter((c) => c.action === "secretsmanager:GetSecretValue").map((c) => c.input.SecretId);
    expect(reads).toContain("runner/prod/RUNNER_AWS_SECRET_ACCESS_KEY");
    expect(fake.calls.at(-1)!.authorization).toContain("Credential=AKIAFAKESTORED000001/");
  });

  test("secret store AccessDenied names the narrowed statement", async () => {
    fake.respond.push((c) => (c.action === "secretsmanager:GetSecretValue" ? awsError(c, "AccessDeniedException", "denied") : undefined));
    const e = await refusal(
      run("aws.sts.getCallerIdentity", {}, { RUNNER_SECRET_STORE_MODE: "aws-secrets-manager", RUNNER_SECRET_PREFIX: "runner/prod", AWS_ACCESS_KEY_ID: "AKIAFAKESTOREID00001", AWS_SECRET_ACCESS_KEY: "store-identity-secret-0000", AWS_EC2_METADATA_DISABLED: "true", RUNNER_AWS_CRED_MODE: "static", RUNNER_AWS_ENDPOINT_URL: fake.url }),
    );
    expect(e.code).toBe("permission");
    expect(e.message).toContain("secretsmanager:GetSecretValue on arn:aws:secretsmanager:<region>:<account>:secret:runner/prod/*");
  });
});

describe("credentials never appear in output, errors or health", () => {
  // A hostile upstream echoes the credential back in its error text.
  const echo = (c: { protocol: string }) => `The key ${KEY_ID} with secret ${SECRET} is not valid`;

  async function agent(args: string[], env: Env) {
    // Debug logging on: the logs (stderr) are checked along with the output.
    const p = Bun.spawn([...runnerCommand(), "agent", ...args], { env: { PATH: process.env.PATH ?? "", HOME: "/tmp", RUNNER_LOG_LEVEL: "debug", ...env } as Record<string, string>, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { out: stdout + stderr, code };
  }

  test("run: an upstream error echoing the key is scrubbed", async () => {
    fake.respond.push((c) => awsError(c, "ValidationException", echo(c)));
    const r = await agent(["run", "aws.ecs.listClusters", "--args", "{}"], staticEnv() as Record<string, string>);
    expect(r.code).toBe(1);
    expect(r.out).toContain('"msg":"operation failed"');
    expect(r.out).toContain("[REDACTED]");
    expect(r.out).not.toContain(SECRET);
    expect(r.out).not.toContain(KEY_ID);
  });

  test("health: ok shows the account, never the key; an echoed error is scrubbed", async () => {
    fake.respond.push((c) => (c.action === "sts:GetCallerIdentity" ? awsOk(c, "<Arn>arn:aws:iam::123456789012:user/runner</Arn><UserId>AIDAFAKE</UserId><Account>123456789012</Account>") : undefined));
    const ok = await agent(["health"], staticEnv() as Record<string, string>);
    expect(ok.out).toMatch(/\naws\s+ok\s+-\s+account 123456789012 as arn:aws:iam::123456789012:user\/runner/);
    expect(ok.out).toContain('"msg":"connector health"');
    expect(ok.out).not.toContain(SECRET);
    expect(ok.out).not.toContain(KEY_ID);

    fake.respond.length = 0;
    fake.respond.push((c) => awsError(c, "ValidationException", echo(c)));
    const ctx = createAgentContext(staticEnv(), pino({ level: "silent" }));
    const [h] = await runHealth(catalog, ctx);
    expect(h!.status).toBe("error");
    expect(h!.detail).not.toContain(SECRET);
    expect(h!.detail).not.toContain(KEY_ID);
  });

  test("results echoing a credential are scrubbed too", async () => {
    fake.respond.push((c) => (c.action === "ecs:ListClusters" ? awsOk(c, { clusterArns: [`arn:aws:ecs:us-east-1:123456789012:cluster/${SECRET}`] }) : undefined));
    const r = await agent(["run", "aws.ecs.listClusters"], staticEnv() as Record<string, string>);
    expect(r.code).toBe(0);
    expect(r.out).not.toContain(SECRET);
  });
});

// The compiled `runner agent`: each Athena storage refusal names its actual cause.
describe("Athena: source data, results bucket and SQL guard (dist/runner)", () => {
  const SOURCE_DENIED =
    "com.amazonaws.services.s3.model.AmazonS3Exception: Access Denied (Service: Amazon S3; Status Code: 403; Error Code: AccessDenied; Request ID: 72VA5FB0ASWCQFPD; S3 Extended Request ID: fake=; Proxy: null), S3 Extended Request ID: fake= (Path: s3://acme-alb-logs/AWSLogs/2026/11/21/part-0001.gz)";
  const failing = (reason: string) =>
    fake.respond.push((c) => {
      if (c.action === "athena:StartQueryExecution") return awsOk(c, { QueryExecutionId: "q-src" });
      if (c.action === "athena:GetQueryExecution") return awsOk(c, { QueryExecution: { QueryExecutionId: "q-src", ResultConfiguration: { OutputLocation: "s3://acme-athena-results/runner/q-src.csv" }, Status: { State: "FAILED", StateChangeReason: reason } } });
      return undefined;
    });
  const athena = (args: unknown) => agentRun(["run", "aws.athena.query", "--args", JSON.stringify(args)], staticEnv());

  test("a denial on the table's source data names the data location, not the results bucket", async () => {
    failing(SOURCE_DENIED);
    const f = agentFailure(await athena({ sql: "SELECT * FROM alb_logs", outputLocation: "s3://acme-athena-results/runner/" }));
    expect(f.code).toBe("permission");
    expect(f.message).toContain("cannot read the table's source data at s3://acme-alb-logs/AWSLogs/2026/11/21/part-0001.gz");
    expect(f.message).toContain("not the results bucket");
    expect(f.message).toContain("Grant s3:GetObject and s3:ListBucket on that location");
    expect(f.message).not.toContain("s3:PutObject");
    expect(f.message).not.toContain("glue:");
  });

  test("Athena's 'Permission denied on S3 path' for the source data is the source data too", async () => {
    failing("HIVE_CANNOT_OPEN_SPLIT: Error opening Hive split s3://acme-alb-logs/AWSLogs/x.gz (offset=0, length=10): Permission denied on S3 path: s3://acme-alb-logs/AWSLogs/x.gz");
    const f = agentFailure(await athena({ sql: "SELECT * FROM alb_logs" }));
    expect(f.message).toContain("cannot read the table's source data at s3://acme-alb-logs/AWSLogs/x.gz");
  });

  test("a denial writing to the results bucket names the results bucket", async () => {
    failing("Access denied when writing output to url: s3://acme-athena-results/runner/q-src.csv . Please ensure you are allowed to access the S3 bucket.");
    const f = agentFailure(await athena({ sql: "SELECT 1" }));
    expect(f.message).toContain("cannot use the query results bucket (s3://acme-athena-results/runner/q-src.csv)");
    expect(f.message).not.toContain("source data at");
  });

  test("a denial on a path inside the results location is the results bucket, whatever the wording", async () => {
    failing("com.amazonaws.services.s3.model.AmazonS3Exception: Access Denied (Service: Amazon S3; Status Code: 403; Error Code: AccessDenied) (Path: s3://acme-athena-results/runner/q-src.csv.metadata)");
    const f = agentFailure(await athena({ sql: "SELECT 1", outputLocation: "s3://acme-athena-results/runner/" }));
    expect(f.message).toContain("cannot use the query results bucket");
  });

  test("source data in the results bucket, outside the results folder, is still the source data", async () => {
    failing("com.amazonaws.services.s3.model.AmazonS3Exception: Access Denied (Service: Amazon S3; Status Code: 403; Error Code: AccessDenied) (Path: s3://acme-athena-results/alb-logs/part-0001.gz)");
    const f = agentFailure(await athena({ sql: "SELECT * FROM alb_logs", outputLocation: "s3://acme-athena-results/runner/" }));
    expect(f.message).toContain("cannot read the table's source data at s3://acme-athena-results/alb-logs/part-0001.gz");
    expect(f.message).not.toContain("s3:PutObject");
  });

  test("SHOW CREATE TABLE only reads: it is sent to Athena as written", async () => {
    fake.respond.push((c) => {
      if (c.action === "athena:StartQueryExecution") return awsOk(c, { QueryExecutionId: "q-ddl" });
      if (c.action === "athena:GetQueryExecution") return awsOk(c, { QueryExecution: { QueryExecutionId: "q-ddl", Status: { State: "SUCCEEDED" } } });
      if (c.action === "athena:GetQueryResults") return awsOk(c, { ResultSet: { ResultSetMetadata: { ColumnInfo: [{ Name: "createtab_stmt" }] }, Rows: [{ Data: [{ VarCharValue: "CREATE EXTERNAL TABLE `alb_logs`(" }] }] } });
      return undefined;
    });
    const r = await athena({ sql: "SHOW CREATE TABLE alb_logs", database: "logs" });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).rows).toEqual([["CREATE EXTERNAL TABLE `alb_logs`("]]);
    expect(fake.calls.find((c) => c.action === "athena:StartQueryExecution")!.input.QueryString).toBe("SHOW CREATE TABLE alb_logs");
  });

  test("writes are still refused, before the credential is even fetched", async () => {
    for (const sql of ["CREATE TABLE t AS SELECT 1", "SHOW CREATE TABLE t; DROP TABLE t", "INSERT INTO t SELECT 1"]) {
      // A secret store that cannot answer: the SQL refusal must come first.
      const env = { RUNNER_AWS_CRED_MODE: "static", RUNNER_SECRET_STORE_MODE: "aws-secrets-manager", RUNNER_SECRET_PREFIX: "runner/", RUNNER_SECRET_STORE_ENDPOINT_URL: "http://127.0.0.1:9", AWS_ACCESS_KEY_ID: "AKIAFAKESTOREID00001", AWS_SECRET_ACCESS_KEY: "store-identity-secret-0000", AWS_EC2_METADATA_DISABLED: "true", RUNNER_AWS_ENDPOINT_URL: fake.url };
      const f = agentFailure(await agentRun(["run", "aws.athena.query", "--args", JSON.stringify({ sql })], env));
      expect(f.code).toBe("invalid_query");
    }
    expect(fake.calls).toEqual([]);
  });
});
