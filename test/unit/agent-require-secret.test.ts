// A configured connector (its URL set) whose credential is missing fails open() with
// not_configured naming the variable and, where the connector gives one, what it must be.
import { describe, expect, test } from "bun:test";
import pino from "pino";
import { githubConnector } from "../../src/agent/connectors/github.ts";
import { slackConnector } from "../../src/agent/connectors/slack.ts";
import { vercelConnector } from "../../src/agent/connectors/vercel.ts";
import { createAgentContext } from "../../src/agent/context.ts";
import { requireSecret } from "../../src/agent/credentials/require-secret.ts";
import { refusal } from "../helpers/agent-refusal.ts";

const ctx = (env: Record<string, string>) => createAgentContext(env, pino({ level: "silent" }));

describe("requireSecret", () => {
  test("returns the value when set", async () => {
    expect(await requireSecret(ctx({ SOME_TOKEN: "tok-1" }), "SOME_TOKEN")).toBe("tok-1");
  });

  test("missing or empty: not_configured with the name, and the hint when given", async () => {
    const bare = await refusal(requireSecret(ctx({}), "SOME_TOKEN"));
    expect(bare.code).toBe("not_configured");
    expect(bare.message).toBe("SOME_TOKEN is not set");
    const hinted = await refusal(requireSecret(ctx({ SOME_TOKEN: "" }), "SOME_TOKEN", "a read-only token"));
    expect(hinted.message).toBe("SOME_TOKEN is not set (a read-only token)");
  });

  test("connectors opened without their credential name it", async () => {
    const v = await refusal(vercelConnector.open(ctx({ RUNNER_VERCEL_URL: "http://127.0.0.1:9" })));
    expect([v.code, v.message]).toEqual(["not_configured", "VERCEL_TOKEN is not set"]);
    const s = await refusal(slackConnector.open(ctx({ RUNNER_SLACK_API_URL: "http://127.0.0.1:9" })));
    expect([s.code, s.message]).toEqual(["not_configured", "SLACK_BOT_TOKEN is not set (a bot token with channels:read, groups:read, channels:history, groups:history)"]);
    const g = await refusal(githubConnector.open(ctx({ RUNNER_GITHUB_API_URL: "http://127.0.0.1:9" })));
    expect(g.message).toStartWith("GITHUB_TOKEN is not set (a fine-grained token");
  });
});
