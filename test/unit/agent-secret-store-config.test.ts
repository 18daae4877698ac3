// A wrong secret store configuration (RUNNER_SECRET_STORE_MODE, RUNNER_SECRET_PREFIX) is reported
// like every other Agent failure, `runner agent: <code>: <message>`, by the compiled dist/runner;
// health still prints its table, with the reason on each configured connector's row.
import { describe, expect, test } from "bun:test";
import { CONNECTORS } from "../../src/agent/connectors/index.ts";
import { agentFailure, agentHealth, runnerAgent } from "../helpers/runner-agent.ts";

const CASES: [string, Record<string, string>, string][] = [
  ["an unknown mode", { RUNNER_SECRET_STORE_MODE: "bogus" }, 'RUNNER_SECRET_STORE_MODE="bogus" is not a known mode (env, aws-secrets-manager)'],
  ["aws-secrets-manager without a prefix", { RUNNER_SECRET_STORE_MODE: "aws-secrets-manager" }, "RUNNER_SECRET_STORE_MODE=aws-secrets-manager needs RUNNER_SECRET_PREFIX"],
];
// A configured connector whose credential would come from the store; nothing listens there.
const GITHUB = { RUNNER_GITHUB_API_URL: "http://127.0.0.1:9" };

describe("secret store configuration errors (dist/runner)", () => {
  for (const [what, store, message] of CASES) {
    test(`${what}: run fails with not_configured, before any request`, async () => {
      const r = await runnerAgent(["run", "github.org.repos", "--args", '{"org":"octo"}'], { ...store, ...GITHUB });
      expect(r.code).toBe(1);
      expect(agentFailure(r)).toEqual({ code: "not_configured", message: expect.stringContaining(message) });
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    });

    test(`${what}: health prints its table, the reason on the configured row, and exits 1`, async () => {
      const table = await runnerAgent(["health"], store);
      expect(table.code).toBe(1);
      expect(table.stdout).toMatch(/^CONNECTOR\s+STATUS\s+MISSING PERMISSION\s+FIX \/ DETAIL\n/);
      expect(table.stdout).toContain(`${CONNECTORS.length} connectors: 0 ok, 0 need action, ${CONNECTORS.length} not configured`);
      expect(agentFailure(table)).toEqual({ code: "not_configured", message: expect.stringContaining(message) });
      const h = await agentHealth({ ...store, ...GITHUB });
      expect(h.code).toBe(1);
      expect(h.of("github")).toMatchObject({ status: "error", detail: expect.stringContaining(message) });
    });
  }
});
