// Enforcement order: (1) the operation must be in the catalog — decided on the name alone, before
// arguments are parsed or validated and before any connector code runs; (2) arguments are
// validated; (3) only then is the connector opened and the operation run.
import { setDefaultTimeout, afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import pino from "pino";
import { ALLOWED_WRITES, Catalog, type Connector, op } from "../../src/agent/catalog.ts";
import { CONNECTORS } from "../../src/agent/connectors/index.ts";
import { createAgentContext } from "../../src/agent/context.ts";
import { enforceAndRun } from "../../src/agent/enforce.ts";
import { refusal } from "../helpers/agent-refusal.ts";
import { type AwsFake, startAwsFake } from "../fixtures/fakes/aws.ts";
import { runnerCommand } from "../helpers/runner-bin.ts";

// Some tests start the executable; from sources each start loads every SDK client, which takes
// seconds on a loaded machine. This is a budget, not a measurement.
setDefaultTimeout(60_000);

/** A connector that records every entry point the Agent calls on it, in order. */
function recordingConnector(events: string[], configured = true): Connector<{ opened: true }> {
  return {
    name: "probe",
    unconfigured: () => (events.push("unconfigured?"), configured ? null : "PROBE_URL is not set"),
    open: async () => (events.push("open"), { opened: true }),
    health: async () => ({ status: "ok", detail: "fine" }),
    operations: [
      op({
        name: "probe.read",
        connector: "probe",
        access: "read",
        summary: "reads",
        permission: { system: "platform", needs: ["read"] },
        args: Type.Object({ id: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
        example: { id: 1 },
        run: async (h, a) => (events.push(`run ${a.id} opened=${h.opened}`), { id: a.id }),
      }),
    ],
  };
}

const quiet = () => createAgentContext({}, pino({ level: "silent" }));

describe("enforcement order", () => {
  test("an unknown operation is refused before its arguments are even parsed", async () => {
    const events: string[] = [];
    const catalog = new Catalog([recordingConnector(events)]);
    const e = await refusal(enforceAndRun(catalog, "probe.delete", "{this is not json", quiet()));
    expect(e.code).toBe("not_in_catalog");
    expect(e.message).toContain('"probe.delete" is not in the catalog');
    expect(events).toEqual([]); // no connector code ran, not even the configuration check
  });

  test("an unknown operation with arguments valid for a real one is still refused by name", async () => {
    const events: string[] = [];
    const catalog = new Catalog([recordingConnector(events)]);
    expect((await refusal(enforceAndRun(catalog, "probe.Read", { id: 1 }, quiet()))).code).toBe("not_in_catalog");
    expect(events).toEqual([]);
  });

  test("a catalogued operation with invalid arguments is refused before the connector is touched", async () => {
    const events: string[] = [];
    const catalog = new Catalog([recordingConnector(events)]);
    for (const bad of ['{"id":0}', '{"id":"1"}', '{"id":1,"extra":true}', "{}", "[1]", "{oops"]) {
      const e = await refusal(enforceAndRun(catalog, "probe.read", bad, quiet()));
      expect(e.code).toBe("invalid_arguments");
    }
    expect(events).toEqual([]);
  });

  test("valid arguments on an unconfigured connector: checked, never opened", async () => {
    const events: string[] = [];
    const catalog = new Catalog([recordingConnector(events, false)]);
    const e = await refusal(enforceAndRun(catalog, "probe.read", { id: 2 }, quiet()));
    expect(e.code).toBe("not_configured");
    expect(events).toEqual(["unconfigured?"]);
  });

  test("a valid call checks configuration, opens the connector, then runs", async () => {
    const events: string[] = [];
    const catalog = new Catalog([recordingConnector(events)]);
    expect(await enforceAndRun(catalog, "probe.read", '{"id":7}', quiet())).toEqual({ id: 7 });
    expect(events).toEqual(["unconfigured?", "open", "run 7 opened=true"]);
  });
});

describe("catalog registration", () => {
  const write = (name: string) =>
    ({
      name: "w",
      unconfigured: () => null,
      open: async () => ({}),
      health: async () => ({ status: "ok", detail: "" }),
      operations: [op({ name, connector: "w", access: "write", summary: "", permission: { system: "platform", needs: ["x"] }, args: Type.Object({}), example: {}, run: async () => null })],
    }) satisfies Connector;

  test("a write outside the five allowed writes cannot enter the catalog", () => {
    for (const name of ["chat.deleteMessage", "ticket.deleteIssue", "aws.ec2.terminateInstances", "github.mergePullRequest"]) {
      expect(() => new Catalog([write(name)])).toThrow(/not one of the allowed writes/);
    }
  });

  test("the five catalogued writes are accepted", () => {
    expect(ALLOWED_WRITES).toEqual(["chat.postMessage", "chat.createChannel", "ticket.createIssue", "ticket.addComment", "ticket.transitionIssue"]);
    for (const name of ALLOWED_WRITES) expect(new Catalog([write(name)]).has(name)).toBe(true);
  });

  test("duplicate operations and operations without a permission are refused", () => {
    const c = recordingConnector([]);
    expect(() => new Catalog([c, { ...c, name: "probe2", operations: c.operations.map((o) => ({ ...o, connector: "probe2" })) }])).toThrow(/registered twice/);
    const noPerm = { ...c, operations: c.operations.map((o) => ({ ...o, permission: { system: "platform" as const, needs: [] } })) };
    expect(() => new Catalog([noPerm])).toThrow(/declares no permission/);
  });

});

describe("runner agent run (the executable)", () => {
  let fake: AwsFake;
  beforeAll(() => {
    fake = startAwsFake();
  });
  afterAll(() => fake.stop());

  async function agent(args: string[], env: Record<string, string> = {}) {
    const p = Bun.spawn([...runnerCommand(), "agent", ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { stdout, stderr, code };
  }

  test("the four BI embed operations are refused by enforcement, before arguments, before AWS", async () => {
    // A broken secret-store mode would fail context creation: it must not even be reached.
    const env = { RUNNER_AWS_CRED_MODE: "static", RUNNER_AWS_ACCESS_KEY_ID: "AKIAFAKEEMBED0000001", RUNNER_AWS_SECRET_ACCESS_KEY: "embed-secret-000000000000", RUNNER_AWS_ENDPOINT_URL: fake.url, RUNNER_SECRET_STORE_MODE: "bogus" };
    for (const name of ["aws.quicksight.generateEmbedUrlForAnonymousUser", "aws.quicksight.generateEmbedUrlForRegisteredUser", "aws.quicksight.generateEmbedUrlForRegisteredUserWithIdentity", "aws.quicksight.getDashboardEmbedUrl"]) {
      const r = await agent(["run", name, "--args", "{not json"], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`not_in_catalog: operation "${name}" is not in the catalog`);
      expect(r.stdout).toBe("");
    }
    expect(fake.calls).toEqual([]);
  });

  test("an operation outside the catalog is refused by name even when --args has no value", async () => {
    const r = await agent(["run", "aws.quicksight.getDashboardEmbedUrl", "--args"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('runner agent: not_in_catalog: operation "aws.quicksight.getDashboardEmbedUrl" is not in the catalog; the Agent refuses it\n');
    const known = await agent(["run", "aws.sts.getCallerIdentity", "--args"]);
    expect(known.code).toBe(2);
    expect(known.stderr).toBe("runner agent: invalid_arguments: --args of aws.sts.getCallerIdentity needs a JSON value\n");
  });

  test("invalid arguments exit 2 without calling AWS", async () => {
    const r = await agent(["run", "aws.eks.describeCluster", "--args", '{"name":""}'], { RUNNER_AWS_CRED_MODE: "static", RUNNER_AWS_ACCESS_KEY_ID: "AKIAFAKEARGS00000001", RUNNER_AWS_SECRET_ACCESS_KEY: "args-secret-000000000000", RUNNER_AWS_ENDPOINT_URL: fake.url });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("invalid_arguments");
    expect(fake.calls).toEqual([]);
  });

  test("catalog --json lists every operation with its permission, access class and schema", async () => {
    const r = await agent(["catalog", "--json"]);
    expect(r.code).toBe(0);
    const ops = JSON.parse(r.stdout) as { name: string; access: string; permission: { needs: string[] }; args: { type: string } }[];
    expect(ops.length).toBe(new Catalog(CONNECTORS).operations().length);
    const getCaller = ops.find((o) => o.name === "aws.sts.getCallerIdentity")!;
    expect(getCaller.permission.needs).toEqual(["sts:GetCallerIdentity"]);
    expect(getCaller.access).toBe("read");
    expect(getCaller.args.type).toBe("object");
  });

  test("health with nothing configured: every connector skipped, exit 0", async () => {
    const r = await agent(["health"]);
    expect(r.code).toBe(0);
    const [head, ...rest] = r.stdout.trim().split("\n");
    expect(head).toMatch(/^CONNECTOR\s+STATUS\s+MISSING PERMISSION\s+FIX \/ DETAIL$/);
    const rows = rest.slice(0, CONNECTORS.length);
    for (const l of rows) expect(l).toMatch(/^[a-z0-9-]+\s+skipped\s+-\s+\S/);
    expect(rows.find((l) => l.startsWith("eks "))).toMatch(/^eks\s+skipped\s+-\s+no cluster configured$/);
    expect(rest.at(-1)).toBe(`${CONNECTORS.length} connectors: 0 ok, 0 need action, ${CONNECTORS.length} not configured`);
  });

  test("the mutations the issue-9 platforms offer are not in the catalog: refused by name, exit 2", async () => {
    const mutations = ["github.pulls.merge", "github.refs.delete", "slack.chat.delete", "slack.conversations.archive", "ticket.deleteIssue", "jira.issues.edit", "argocd.applications.sync", "argocd.applications.delete", "argocd.applications.refresh", "checkly.checks.delete", "vercel.deployments.cancel", "sonar.issues.setSeverity", "cloudflare.dns.create", "azion.applications.delete", "mongodb.insert", "mongodb.runCommand"];
    for (const name of mutations) {
      const r = await agent(["run", name, "--args", "{}"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`not_in_catalog: operation "${name}" is not in the catalog`);
    }
  });

  test("unknown subcommand prints usage and exits 2", async () => {
    const r = await agent(["delete"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("usage: runner agent");
  });
});
