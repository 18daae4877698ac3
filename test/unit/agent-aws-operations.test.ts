// Every AWS catalog operation, run with its documented example against the local AWS fake using
// the real SDK clients: each request the connector makes is an action that operation declares,
// every declared action is in the read-only policy, and nothing outside it is ever called.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { Catalog } from "../../src/agent/catalog.ts";
import { awsConnector } from "../../src/agent/connectors/aws.ts";
import { createAgentContext } from "../../src/agent/context.ts";
import { enforceAndRun } from "../../src/agent/enforce.ts";
import { type AwsFake, awsOk, startAwsFake } from "../fixtures/fakes/aws.ts";

let fake: AwsFake;
const catalog = new Catalog([awsConnector]);
const env = () => ({
  RUNNER_AWS_CRED_MODE: "static",
  RUNNER_AWS_ACCESS_KEY_ID: "AKIAFAKEOPERATIONS01",
  RUNNER_AWS_SECRET_ACCESS_KEY: "fake-secret-for-operations-test-0000000",
  RUNNER_AWS_REGION: "us-east-1",
  RUNNER_AWS_ENDPOINT_URL: fake.url,
});

beforeAll(() => {
  fake = startAwsFake();
  // Query operations need an id and a finished state to reach their result calls.
  fake.respond.push((c) => {
    if (c.action === "athena:StartQueryExecution") return awsOk(c, { QueryExecutionId: "q-1" });
    if (c.action === "athena:GetQueryExecution") return awsOk(c, { QueryExecution: { QueryExecutionId: "q-1", Status: { State: "SUCCEEDED" } } });
    if (c.action === "cloudtrail:StartQuery") return awsOk(c, { QueryId: "l-1" });
    if (c.action === "cloudtrail:DescribeQuery") return awsOk(c, { QueryId: "l-1", QueryStatus: "FINISHED" });
    if (c.action === "logs:StartQuery") return awsOk(c, { queryId: "i-1" });
    if (c.action === "logs:GetQueryResults") return awsOk(c, { status: "Complete", results: [] });
    return undefined;
  });
});
afterAll(() => fake.stop());

describe("AWS operations against the fake", () => {
  const awsOps = catalog.operations().filter((o) => o.connector === "aws");

  test("the catalog has the AWS operations", () => {
    expect(awsOps.length).toBeGreaterThan(80);
  });

  for (const o of awsOps) {
    test(`${o.name} calls only what it declares`, async () => {
      const before = fake.calls.length;
      const violationsBefore = fake.violations.length;
      const ctx = createAgentContext(env(), pino({ level: "silent" }));
      await enforceAndRun(catalog, o.name, o.example, ctx);
      const made = fake.calls.slice(before).map((c) => c.action.toLowerCase());
      expect(made.length).toBeGreaterThan(0);
      const declared = o.permission.needs.map((a) => a.toLowerCase());
      for (const a of made) expect(declared).toContain(a);
      expect(fake.violations.slice(violationsBefore)).toEqual([]);
    });
  }
});
