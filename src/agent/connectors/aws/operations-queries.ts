import { Type } from "@sinclair/typebox";
import { op, type Operation } from "../../catalog.ts";
import { AgentError } from "../../errors.ts";
import { diagnoseAwsError } from "./diagnose.ts";
import type { AwsHandle } from "./handle.ts";
import { storageFailure } from "./query-storage.ts";
import { A, callAws, sdkRead } from "./sdk-operation.ts";
import { assertReadOnlySql } from "./sql-guard.ts";

// Query operations start an execution (allowed by the read-only policy: it reads, it does not
// change data), poll it, and read the results. The SQL is validated first, in preflight (before
// the credential is fetched): DDL and DML never leave the process.

const sdk_athena = () => import("@aws-sdk/client-athena");
const sdk_cloudtrail = () => import("@aws-sdk/client-cloudtrail");
const sdk_logs = () => import("@aws-sdk/client-cloudwatch-logs");

const timeout = Type.Optional(Type.Integer({ minimum: 1, maximum: 600 }));

async function poll<T>(timeoutSeconds: number, step: () => Promise<T | undefined>): Promise<T | undefined> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  let wait = 100;
  for (;;) {
    const done = await step();
    if (done !== undefined) return done;
    if (Date.now() + wait > deadline) return undefined;
    await Bun.sleep(wait);
    wait = Math.min(wait * 2, 2000);
  }
}

const athenaQuery = op<AwsHandle, any>({
  name: "aws.athena.query",
  connector: "aws",
  access: "read",
  summary: "run a read-only Athena SQL query (SELECT/WITH/SHOW/DESCRIBE/EXPLAIN) and return its rows",
  permission: { system: "aws-iam", needs: ["athena:StartQueryExecution", "athena:GetQueryExecution", "athena:GetQueryResults", "athena:StopQueryExecution"] },
  args: Type.Object({ sql: A.str, database: A.optStr, catalog: A.optStr, workgroup: A.optStr, outputLocation: Type.Optional(Type.String({ pattern: "^s3://" })), timeoutSeconds: timeout, maxRows: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }, { additionalProperties: false }),
  example: { sql: "SELECT status, count(*) FROM alb_logs GROUP BY status", database: "logs", outputLocation: "s3://my-athena-results/runner/" },
  // DDL and DML never leave the process, and are refused before any credential is fetched.
  preflight: (a) => assertReadOnlySql(a.sql, "Athena"),
  async run(h, a) {
    const { AthenaClient, GetQueryExecutionCommand, GetQueryResultsCommand, StartQueryExecutionCommand, StopQueryExecutionCommand } = await sdk_athena();
    let id: string;
    try {
      const started = await h.client(AthenaClient).send(
        new StartQueryExecutionCommand({
          QueryString: a.sql,
          WorkGroup: a.workgroup,
          QueryExecutionContext: a.database || a.catalog ? { Database: a.database, Catalog: a.catalog } : undefined,
          ResultConfiguration: a.outputLocation ? { OutputLocation: a.outputLocation } : undefined,
        }),
      );
      id = started.QueryExecutionId!;
    } catch (e) {
      throw storageFailure((e as Error).message, "Athena StartQueryExecution", a.outputLocation) ?? diagnoseAwsError("athena:StartQueryExecution", e);
    }
    const final = await poll(a.timeoutSeconds ?? 60, async () => {
      const out = await callAws(h, "athena:GetQueryExecution", AthenaClient, new GetQueryExecutionCommand({ QueryExecutionId: id }));
      const state = out.QueryExecution?.Status?.State;
      return state === "SUCCEEDED" || state === "FAILED" || state === "CANCELLED" ? out.QueryExecution : undefined;
    });
    if (!final) {
      // Our own execution: stop it so it does not keep scanning (and billing) after we gave up.
      await callAws(h, "athena:StopQueryExecution", AthenaClient, new StopQueryExecutionCommand({ QueryExecutionId: id })).catch(() => undefined);
      throw new AgentError("upstream", `Athena query ${id} did not finish within ${a.timeoutSeconds ?? 60}s; it was stopped`);
    }
    const state = final.Status?.State;
    if (state !== "SUCCEEDED") {
      const reason: string | undefined = final.Status?.StateChangeReason ?? final.Status?.AthenaError?.ErrorMessage;
      throw storageFailure(reason, `Athena query ${id}`, final.ResultConfiguration?.OutputLocation ?? a.outputLocation) ?? new AgentError("upstream", `Athena query ${id} ${state}: ${reason ?? "no reason given"}`);
    }
    const res = await callAws(h, "athena:GetQueryResults", AthenaClient, new GetQueryResultsCommand({ QueryExecutionId: id, MaxResults: a.maxRows ?? 1000 }));
    const columns: string[] = (res.ResultSet?.ResultSetMetadata?.ColumnInfo ?? []).map((c: { Name?: string }) => c.Name ?? "");
    const rows: (string | null)[][] = (res.ResultSet?.Rows ?? []).map((r: { Data?: { VarCharValue?: string }[] }) => (r.Data ?? []).map((d) => d.VarCharValue ?? null));
    // Athena repeats the header as the first row of a SELECT result.
    if (rows.length && rows[0]!.every((v, i) => v === columns[i])) rows.shift();
    return { queryExecutionId: id, columns, rows, nextToken: res.NextToken };
  },
});

const cloudTrailLakeQuery = op<AwsHandle, any>({
  name: "aws.cloudtrail.lakeQuery",
  connector: "aws",
  access: "read",
  summary: "run a read-only CloudTrail Lake SQL query and return its rows",
  permission: { system: "aws-iam", needs: ["cloudtrail:StartQuery", "cloudtrail:DescribeQuery", "cloudtrail:GetQueryResults"] },
  args: Type.Object({ sql: A.str, timeoutSeconds: timeout }, { additionalProperties: false }),
  example: { sql: "SELECT eventName, count(*) FROM 0123abcd-0123-0123-0123-0123456789ab WHERE eventTime > '2026-11-21 00:00:00' GROUP BY eventName" },
  preflight: (a) => assertReadOnlySql(a.sql, "CloudTrail Lake"),
  async run(h, a) {
    const { CloudTrailClient, DescribeQueryCommand, GetQueryResultsCommand: GetLakeResultsCommand, StartQueryCommand: StartLakeQueryCommand } = await sdk_cloudtrail();
    const started = await callAws(h, "cloudtrail:StartQuery", CloudTrailClient, new StartLakeQueryCommand({ QueryStatement: a.sql }));
    const id: string = started.QueryId;
    const final = await poll(a.timeoutSeconds ?? 60, async () => {
      const d = await callAws(h, "cloudtrail:DescribeQuery", CloudTrailClient, new DescribeQueryCommand({ QueryId: id }));
      return ["FINISHED", "FAILED", "CANCELLED", "TIMED_OUT"].includes(d.QueryStatus) ? d : undefined;
    });
    if (!final) throw new AgentError("upstream", `CloudTrail Lake query ${id} did not finish within ${a.timeoutSeconds ?? 60}s`);
    if (final.QueryStatus !== "FINISHED") throw new AgentError("upstream", `CloudTrail Lake query ${id} ${final.QueryStatus}: ${final.ErrorMessage ?? "no reason given"}`);
    const res = await callAws(h, "cloudtrail:GetQueryResults", CloudTrailClient, new GetLakeResultsCommand({ QueryId: id }));
    return { queryId: id, rows: res.QueryResultRows ?? [], nextToken: res.NextToken };
  },
});

const logsInsightsQuery = op<AwsHandle, any>({
  name: "aws.logs.query",
  connector: "aws",
  access: "read",
  summary: "run a CloudWatch Logs Insights query and return its results",
  permission: { system: "aws-iam", needs: ["logs:StartQuery", "logs:GetQueryResults"] },
  args: Type.Object({ logGroupNames: A.strs, queryString: A.str, startTime: Type.Integer({ minimum: 0 }), endTime: Type.Integer({ minimum: 0 }), limit: A.optInt, timeoutSeconds: timeout }, { additionalProperties: false }),
  example: { logGroupNames: ["/aws/lambda/api-handler"], queryString: "fields @timestamp, @message | filter @message like /ERROR/ | limit 20", startTime: 1795791600, endTime: 1795795200 },
  async run(h, a) {
    const { CloudWatchLogsClient, GetQueryResultsCommand: GetInsightsResultsCommand, StartQueryCommand: StartInsightsQueryCommand } = await sdk_logs();
    const started = await callAws(h, "logs:StartQuery", CloudWatchLogsClient, new StartInsightsQueryCommand({ logGroupNames: a.logGroupNames, queryString: a.queryString, startTime: a.startTime, endTime: a.endTime, limit: a.limit }));
    const id: string = started.queryId;
    const final = await poll(a.timeoutSeconds ?? 60, async () => {
      const r = await callAws(h, "logs:GetQueryResults", CloudWatchLogsClient, new GetInsightsResultsCommand({ queryId: id }));
      return ["Complete", "Failed", "Cancelled", "Timeout"].includes(r.status) ? r : undefined;
    });
    if (!final) throw new AgentError("upstream", `Logs Insights query ${id} did not finish within ${a.timeoutSeconds ?? 60}s`);
    if (final.status !== "Complete") throw new AgentError("upstream", `Logs Insights query ${id} ended ${final.status}`);
    return { queryId: id, results: final.results ?? [], statistics: final.statistics };
  },
});

export const queryOperations: Operation<AwsHandle>[] = [
  athenaQuery,
  cloudTrailLakeQuery,
  logsInsightsQuery,
  sdkRead({ name: "aws.athena.getQueryExecution", action: "athena:GetQueryExecution", summary: "state of an Athena query execution", sdk: sdk_athena, client: "AthenaClient", command: "GetQueryExecutionCommand", args: { QueryExecutionId: A.str }, example: { QueryExecutionId: "0123abcd-0123-0123-0123-0123456789ab" } }),
  sdkRead({ name: "aws.athena.batchGetQueryExecution", action: "athena:BatchGetQueryExecution", summary: "several Athena query executions", sdk: sdk_athena, client: "AthenaClient", command: "BatchGetQueryExecutionCommand", args: { QueryExecutionIds: Type.Array(A.str, { minItems: 1, maxItems: 50 }) }, example: { QueryExecutionIds: ["0123abcd-0123-0123-0123-0123456789ab"] } }),
  sdkRead({ name: "aws.athena.listQueryExecutions", action: "athena:ListQueryExecutions", summary: "recent Athena query executions", sdk: sdk_athena, client: "AthenaClient", command: "ListQueryExecutionsCommand", args: { WorkGroup: A.optStr, NextToken: A.optStr, MaxResults: A.optInt }, example: {} }),
];
