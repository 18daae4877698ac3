// EKS connector: endpoint and CA through eks:DescribeCluster (AWS fake), a cluster token like the
// CLI's (verified by the cluster fake by recomputing its signature), 401/403 from the cluster
// explained as a missing access entry / cluster role binding, and "skipped: no cluster
// configured" when the cluster variable is unset.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { Catalog } from "../../src/agent/catalog.ts";
import { EKS_RESOURCES, eksConnector, rbac } from "../../src/agent/connectors/eks.ts";
import { clusterToken, TOKEN_PREFIX } from "../../src/agent/connectors/eks/token.ts";
import { createAgentContext, type Env } from "../../src/agent/context.ts";
import { enforceAndRun } from "../../src/agent/enforce.ts";
import { refusal } from "../helpers/agent-refusal.ts";
import { runHealth } from "../../src/agent/health.ts";
import { type AwsFake, awsOk, startAwsFake } from "../fixtures/fakes/aws.ts";
import { type ClusterFake, makeSelfSignedCert, startClusterFake } from "../fixtures/fakes/eks-cluster.ts";
import { REPO_ROOT } from "../helpers/runner-bin.ts";

const credentials = { accessKeyId: "AKIAFAKEEKS000000001", secretAccessKey: "eks-secret-key-00000000000000000" };
const ALL = EKS_RESOURCES.flatMap((r) => r.verbs.map((v) => rbac(r, v)));
let aws: AwsFake;
let cluster: ClusterFake;
const catalog = new Catalog([eksConnector]);
const env = (over: Env = {}): Env => ({ RUNNER_EKS_CLUSTER: "prod", RUNNER_AWS_CRED_MODE: "static", RUNNER_AWS_ACCESS_KEY_ID: credentials.accessKeyId, RUNNER_AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey, RUNNER_AWS_REGION: "eu-west-1", RUNNER_AWS_ENDPOINT_URL: aws.url, ...over });
const ctx = (e: Env) => createAgentContext(e, pino({ level: "silent" }));

beforeAll(() => {
  aws = startAwsFake();
  cluster = startClusterFake({ cluster: "prod", region: "eu-west-1", credentials, accessEntry: true, granted: [...ALL] });
  aws.respond.push((c) => {
    if (c.action === "eks:DescribeCluster") return awsOk(c, { cluster: { name: "prod", status: "ACTIVE", endpoint: cluster.endpoint, certificateAuthority: { data: Buffer.from(cluster.caPem).toString("base64") } } });
    if (c.action === "sts:GetCallerIdentity") return awsOk(c, "<Arn>arn:aws:iam::123456789012:role/runner-agent</Arn><UserId>AROAFAKE</UserId><Account>123456789012</Account>");
    return undefined;
  });
});
afterEach(() => {
  expect(aws.violations).toEqual([]);
  expect(cluster.violations).toEqual([]);
  expect(cluster.tokenProblems).toEqual([]);
  cluster.requests.length = 0;
  aws.calls.length = 0;
  cluster.options.accessEntry = true;
  cluster.options.granted = [...ALL];
});
afterAll(() => {
  aws.stop();
  cluster.stop();
});

describe("EKS", () => {
  test("cluster variable unset: health says skipped: no cluster configured", async () => {
    const [h] = await runHealth(catalog, ctx(env({ RUNNER_EKS_CLUSTER: undefined })));
    expect(h).toEqual({ connector: "eks", status: "skipped", detail: "no cluster configured" });
    expect(aws.calls).toEqual([]);
  });

  test("every operation runs through DescribeCluster, the CA and a verified token", async () => {
    for (const o of catalog.operations()) {
      await enforceAndRun(catalog, o.name, o.example, ctx(env()));
    }
    expect(cluster.requests.map((r) => r.permission).sort()).toEqual([...ALL].sort());
    expect(new Set(aws.calls.map((c) => c.action))).toEqual(new Set(["eks:DescribeCluster"]));
    expect(aws.calls[0]!.input.path).toBe("/clusters/prod");
  });

  test("health lists pods through the read role", async () => {
    const [h] = await runHealth(catalog, ctx(env()));
    expect(h!.status).toBe("ok");
    expect(h!.detail).toContain("cluster prod");
  });

  test("401 from the cluster: a missing access entry, not IAM", async () => {
    cluster.options.accessEntry = false;
    const e = await refusal(enforceAndRun(catalog, "eks.pods.list", {}, ctx(env())));
    expect(e.code).toBe("permission");
    expect(e.message).toContain("401 from the cluster itself");
    expect(e.message).toContain("not a missing IAM permission");
    expect(e.message).toContain("Create an access entry for arn:aws:iam::123456789012:role/runner-agent");
    expect(e.message).toContain("aws-auth");
  });

  test("403 from the cluster: a missing cluster role binding, naming the RBAC permission", async () => {
    cluster.options.granted = ALL.filter((p) => p !== "apps/deployments:get");
    const e = await refusal(enforceAndRun(catalog, "eks.deployments.get", { namespace: "shop", name: "api" }, ctx(env())));
    expect(e.code).toBe("permission");
    expect(e.message).toContain("403 from the cluster itself; needs apps/deployments:get");
    expect(e.message).toContain("no cluster role binding");
    expect(e.message).toContain("policies/eks/runner-read-clusterrole.yaml");
  });

  test("a token signed with another key is rejected by the cluster (the fake really verifies)", async () => {
    const token = await clusterToken({ accessKeyId: credentials.accessKeyId, secretAccessKey: "some-other-secret-000000000" }, "eu-west-1", "prod");
    const res = await fetch(`${cluster.endpoint}/api/v1/pods`, { headers: { authorization: `Bearer ${token}` }, tls: { ca: cluster.caPem } } as RequestInit);
    expect(res.status).toBe(401);
    expect(cluster.tokenProblems.splice(0)).toEqual(["signature does not verify (wrong key, or not signed for this cluster)"]);
  });

  test("the cluster's certificate must chain to the CA from DescribeCluster", async () => {
    const other = makeSelfSignedCert().cert;
    aws.respond.unshift((c) => (c.action === "eks:DescribeCluster" ? awsOk(c, { cluster: { name: "prod", status: "ACTIVE", endpoint: cluster.endpoint, certificateAuthority: { data: Buffer.from(other).toString("base64") } } }) : undefined));
    try {
      const e = await refusal(enforceAndRun(catalog, "eks.pods.list", {}, ctx(env())));
      expect(e.code).toBe("upstream");
      expect(e.message).toContain("cannot reach 127.0.0.1");
      expect(cluster.requests).toEqual([]);
    } finally {
      aws.respond.shift();
    }
  });

  test("the token has the CLI's shape: prefix, base64url without padding, 60 s, x-k8s-aws-id signed", async () => {
    const token = await clusterToken(credentials, "eu-west-1", "prod", new Date("2026-11-21T16:00:00Z"));
    expect(token.startsWith(TOKEN_PREFIX)).toBe(true);
    const url = new URL(Buffer.from(token.slice(TOKEN_PREFIX.length), "base64url").toString());
    expect(url.origin).toBe("https://sts.eu-west-1.amazonaws.com");
    expect(url.searchParams.get("X-Amz-Expires")).toBe("60");
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("host;x-k8s-aws-id");
    expect(url.searchParams.get("X-Amz-Credential")).toBe(`${credentials.accessKeyId}/20261121/eu-west-1/sts/aws4_request`);
    expect(token).not.toContain(credentials.secretAccessKey);
  });

  test("the operations' RBAC needs are exactly the ClusterRole's rules", () => {
    const doc = (Bun.YAML.parse(readFileSync(join(REPO_ROOT, "policies/eks/runner-read-clusterrole.yaml"), "utf8")) as any[]).find((d) => d.kind === "ClusterRole");
    const fromRole = doc.rules.flatMap((r: any) => r.apiGroups.flatMap((g: string) => r.resources.flatMap((res: string) => r.verbs.map((v: string) => `${g || "core"}/${res}:${v}`))));
    const fromOps = catalog.operations().flatMap((o) => o.permission.needs);
    expect(fromOps.sort()).toEqual(fromRole.sort());
  });
});
