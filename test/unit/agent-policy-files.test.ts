// The policy files are what the reference says, the documentation shows them verbatim, and the
// control plane's docs route serves them byte for byte over real HTTP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia } from "elysia";
import { docsRoutes } from "../../src/server/docs/routes.ts";
import { REPO_ROOT } from "../helpers/runner-bin.ts";

const policiesDir = join(REPO_ROOT, "policies");
const readOnlyPath = join(policiesDir, "aws/runner-read-only.json");

// Transcribed from the reference document, "Cloud A: read-only policy" (Sids and actions verbatim).
const REFERENCE: [string, string[]][] = [
  ["IdentidadeEContexto", ["sts:GetCallerIdentity", "organizations:DescribeOrganization", "organizations:ListAccounts"]],
  ["CustoEFinOps", ["ce:GetCostAndUsage", "ce:GetAnomalies", "ce:GetReservationCoverage", "ce:GetReservationPurchaseRecommendation", "ce:GetSavingsPlansCoverage", "ce:GetSavingsPlansPurchaseRecommendation", "compute-optimizer:GetEnrollmentStatus", "compute-optimizer:GetEC2InstanceRecommendations", "compute-optimizer:GetEBSVolumeRecommendations", "compute-optimizer:GetLambdaFunctionRecommendations", "compute-optimizer:GetAutoScalingGroupRecommendations", "compute-optimizer:GetRDSDatabaseRecommendations"]],
  ["Compute", ["ec2:DescribeInstances", "ec2:DescribeAddresses", "ec2:DescribeNetworkInterfaces", "ec2:DescribeSecurityGroups", "ec2:DescribeSubnets", "ec2:DescribeVpcs", "ec2:DescribeVpcEndpoints", "ec2:DescribeVpcPeeringConnections", "ec2:DescribeRouteTables", "ec2:DescribeInternetGateways", "ec2:DescribeNatGateways", "ec2:DescribeCustomerGateways", "ec2:DescribeVpnConnections", "ec2:DescribeVpnGateways", "ec2:DescribeTransitGateways", "ec2:DescribeTransitGatewayAttachments", "ec2:DescribeManagedPrefixLists", "ecs:ListClusters", "eks:ListClusters", "eks:DescribeCluster", "eks:ListNodegroups", "eks:DescribeNodegroup", "ecr:DescribeRepositories", "ecr:DescribeImages", "lambda:ListFunctions", "lambda:GetFunctionConfiguration", "lambda:ListEventSourceMappings"]],
  ["BancosDeDados", ["rds:DescribeDBInstances", "rds:DescribeDBClusters", "rds:DescribeDBSubnetGroups", "rds:ListTagsForResource", "dms:DescribeReplicationInstances", "dms:DescribeReplicationTasks", "es:ListDomainNames", "es:DescribeDomains", "elasticache:DescribeCacheClusters", "elasticache:DescribeReplicationGroups", "pi:DescribeDimensionKeys", "pi:GetResourceMetrics"]],
  ["Rede", ["elasticloadbalancing:DescribeLoadBalancers", "elasticloadbalancing:DescribeTargetGroups", "elasticloadbalancing:DescribeTargetHealth", "elasticloadbalancing:DescribeInstanceHealth", "elasticloadbalancing:DescribeTags", "route53:ListHostedZones", "route53:GetHostedZone", "route53:ListResourceRecordSets", "sqs:ListQueues", "sqs:GetQueueUrl", "sqs:GetQueueAttributes"]],
  ["Observabilidade", ["cloudwatch:GetMetricData", "cloudwatch:DescribeAlarms", "logs:DescribeLogGroups", "logs:FilterLogEvents", "logs:StartQuery", "logs:GetQueryResults", "application-signals:ListServices", "application-signals:ListServiceLevelObjectives", "application-signals:BatchGetServiceLevelObjectiveBudgetReport"]],
  ["AuditoriaEConsulta", ["cloudtrail:LookupEvents", "cloudtrail:ListEventDataStores", "cloudtrail:StartQuery", "cloudtrail:DescribeQuery", "cloudtrail:GetQueryResults", "athena:StartQueryExecution", "athena:StopQueryExecution", "athena:GetQueryExecution", "athena:BatchGetQueryExecution", "athena:GetQueryResults", "athena:ListQueryExecutions"]],
  ["SegurancaIamSomenteLeitura", ["iam:ListUsers", "iam:ListAccessKeys", "iam:GetAccessKeyLastUsed"]],
  ["BiQuickSightSomenteLeitura", ["quicksight:Describe*", "quicksight:List*", "quicksight:Search*"]],
];

function fencedJsonBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe("AWS read-only policy file", () => {
  const policy = JSON.parse(readFileSync(readOnlyPath, "utf8"));

  test("version 2012-10-17, every statement Allow on *", () => {
    expect(policy.Version).toBe("2012-10-17");
    for (const s of policy.Statement) {
      expect(s.Effect).toBe("Allow");
      expect(s.Resource).toBe("*");
      expect(Object.keys(s).sort()).toEqual(["Action", "Effect", "Resource", "Sid"]);
    }
  });

  test("Sids and actions exactly as the reference lists them, in order", () => {
    expect(policy.Statement.map((s: { Sid: string; Action: string[] }) => [s.Sid, s.Action])).toEqual(REFERENCE);
  });

  test("the documentation shows the file verbatim", () => {
    const doc = readFileSync(join(REPO_ROOT, "docs/aws-read-only-policy.md"), "utf8");
    const blocks = fencedJsonBlocks(doc);
    expect(blocks[0]).toBe(readFileSync(readOnlyPath, "utf8"));
    expect(blocks[1]).toBe(readFileSync(join(policiesDir, "aws/runner-secret-store.json"), "utf8"));
  });
});

describe("secret-store policy", () => {
  test("GetSecretValue only, narrowed to the secret prefix, never *", () => {
    const p = JSON.parse(readFileSync(join(policiesDir, "aws/runner-secret-store.json"), "utf8"));
    expect(p.Version).toBe("2012-10-17");
    expect(p.Statement).toHaveLength(1);
    expect(p.Statement[0].Action).toEqual(["secretsmanager:GetSecretValue"]);
    expect(p.Statement[0].Resource).toMatch(/^arn:aws:secretsmanager:[^:]+:[^:]+:secret:<secret_prefix>\/\*$/);
  });
});

describe("EKS ClusterRole", () => {
  test("rules exactly as the reference: pods/services/endpoints get+list, deployments get, ingresses get+list", () => {
    const docs = Bun.YAML.parse(readFileSync(join(policiesDir, "eks/runner-read-clusterrole.yaml"), "utf8")) as any[];
    const role = docs.find((d) => d.kind === "ClusterRole");
    expect(role.rules).toEqual([
      { apiGroups: [""], resources: ["pods", "services", "endpoints"], verbs: ["get", "list"] },
      { apiGroups: ["apps"], resources: ["deployments"], verbs: ["get"] },
      { apiGroups: ["networking.k8s.io"], resources: ["ingresses"], verbs: ["get", "list"] },
    ]);
  });
});

describe("Argo CD RBAC and GCP roles", () => {
  test("one allow rule applications/get on */* and the group line", () => {
    const lines = readFileSync(join(policiesDir, "argocd/runner-rbac.csv"), "utf8").trim().split("\n");
    expect(lines).toEqual(["p, role:runner-read, applications, get, */*, allow", "g, runner, role:runner-read"]);
  });

  test("GCP roles as the reference lists them; billing viewer on the billing account", () => {
    const r = JSON.parse(readFileSync(join(policiesDir, "gcp/runner-roles.json"), "utf8"));
    expect(r.project.map((x: { role: string }) => x.role)).toEqual([
      "roles/viewer", "roles/monitoring.viewer", "roles/logging.viewer", "roles/cloudasset.viewer", "roles/recommender.viewer",
      "roles/securitycenter.findingsViewer", "roles/bigquery.dataViewer", "roles/bigquery.jobUser", "roles/iam.securityReviewer",
    ]);
    expect(r.billingAccount.map((x: { role: string }) => x.role)).toEqual(["roles/billing.viewer"]);
  });
});

describe("docs route over HTTP", () => {
  let base: string;
  let app: { stop(): unknown };
  let outside: string;

  beforeAll(() => {
    // A copy of policies/ with a symlink escaping it, to prove the route does not follow it.
    const dir = mkdtempSync(join(tmpdir(), "agent-docs-"));
    outside = join(dir, "secret.json");
    writeFileSync(outside, '{"secret":true}');
    const served = join(dir, "policies");
    mkdirSync(join(served, "aws"), { recursive: true });
    writeFileSync(join(served, "aws/runner-read-only.json"), readFileSync(readOnlyPath));
    symlinkSync(outside, join(served, "aws/escape.json"));
    const a = new Elysia()
      .use(docsRoutes({ policiesDir: served }))
      .group("/repo", (g) => g.use(docsRoutes({ policiesDir })))
      .group("/embedded", (g) => g.use(docsRoutes()))
      .listen({ hostname: "127.0.0.1", port: 0 });
    app = a;
    base = `http://127.0.0.1:${a.server!.port}`;
  });
  afterAll(() => app.stop());

  test("serves the policy byte for byte as JSON", async () => {
    const res = await fetch(`${base}/docs/aws/runner-read-only.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(readOnlyPath))).toBe(true);
  });

  test("serves every file of the repository's policies/ identically, from disk and embedded", async () => {
    const files = readdirSync(policiesDir, { recursive: true, encoding: "utf8" }).filter((f) => /\.(json|yaml|csv)$/.test(f));
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const prefix of ["/repo", "/embedded"]) {
      for (const f of files) {
        const res = await fetch(`${base}${prefix}/docs/${f}`);
        expect(res.status).toBe(200);
        expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(policiesDir, f)))).toBe(true);
      }
    }
  });

  test("unknown, traversal, hidden and symlinked-out names are 404", async () => {
    for (const p of ["/embedded/docs/aws/nope.json", "/embedded/docs/aws/..%2Frunner-read-only.json", "/docs/aws/nope.json", "/docs/aws/..%2F..%2Fpackage.json", "/docs/..%2Fpolicies/runner-read-only.json", "/docs/aws/.hidden.json", "/docs/aws/escape.json", "/docs/aws/runner-read-only.txt", "/docs/AWS/runner-read-only.json"]) {
      const res = await fetch(`${base}${p}`);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain("secret");
    }
  });
});
