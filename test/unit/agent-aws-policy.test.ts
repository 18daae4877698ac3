// The read-only policy and the AWS connector agree exactly: every action an AWS operation calls
// is granted by the policy, and every action (or wildcard) in the policy is used by some
// operation. Embed and SSO permissions are neither used nor granted.
import { describe, expect, test } from "bun:test";
import { Catalog } from "../../src/agent/catalog.ts";
import { awsConnector } from "../../src/agent/connectors/aws.ts";
import { actionMatches } from "../../src/agent/connectors/aws/policy.ts";
import policy from "../../policies/aws/runner-read-only.json";

const used = new Catalog([awsConnector]).operations().flatMap((o) => o.permission.needs);
const granted = policy.Statement.flatMap((s) => s.Action);

describe("AWS connector vs read-only policy", () => {
  test("every action the connector calls is in the policy", () => {
    const missing = used.filter((a) => !granted.some((p) => actionMatches(p, a)));
    expect(missing).toEqual([]);
  });

  test("nothing in the policy is unused", () => {
    const unused = granted.filter((p) => !used.some((a) => actionMatches(p, a)));
    expect(unused).toEqual([]);
  });

  test("every operation declares IAM actions, spelled service:Operation", () => {
    for (const a of used) expect(a).toMatch(/^[a-z0-9-]+:[A-Z][A-Za-z0-9]+$/);
  });

  test("no embed operation and no sso:* anywhere", () => {
    expect(used.filter((a) => /embed/i.test(a) || a.startsWith("sso:"))).toEqual([]);
    expect(granted.filter((a) => /embed/i.test(a) || a.startsWith("sso:"))).toEqual([]);
  });

  test("the wildcard matcher is exact, not a prefix match", () => {
    expect(actionMatches("quicksight:List*", "quicksight:ListDashboards")).toBe(true);
    expect(actionMatches("quicksight:List*", "quicksight:GenerateEmbedUrlForRegisteredUser")).toBe(false);
    expect(actionMatches("ec2:DescribeVpcs", "ec2:DescribeVpcsX")).toBe(false);
  });
});
