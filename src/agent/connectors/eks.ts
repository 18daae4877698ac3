import { Type } from "@sinclair/typebox";
import { type Connector, op, type Operation } from "../catalog.ts";
import type { AgentContext } from "../context.ts";
import { AgentError } from "../errors.ts";
import { openAws, type AwsHandle } from "./aws/handle.ts";
import { callAws } from "./aws/sdk-operation.ts";
import { clusterToken } from "./eks/token.ts";
import { httpJson, urlOf } from "./http.ts";

// EKS, two layers. Layer 1 (IAM): eks:DescribeCluster gives the endpoint and CA. Layer 2 (in
// the cluster): a token like `aws eks get-token`, checked by the cluster against its access
// entries (or aws-auth) and RBAC. A 401/403 from the cluster is never an IAM problem: it means
// no access entry (401) or no binding to the read ClusterRole (403).
//
// RUNNER_EKS_CLUSTER names the cluster; unset, the connector is skipped ("no cluster
// configured"), which is not a permission error. AWS credentials as for the aws connector.

export const CLUSTER_ENV = "RUNNER_EKS_CLUSTER";
const ROLE_FILE = "policies/eks/runner-read-clusterrole.yaml";

export interface EksHandle {
  aws: AwsHandle;
  cluster: string;
  endpoint: string;
  ca: string;
  token(): Promise<string>;
}

async function callCluster(h: EksHandle, opName: string, permission: string, path: string, query: Record<string, string | number | undefined> = {}) {
  const res = await httpJson(urlOf(h.endpoint, path, query), { headers: { authorization: `Bearer ${await h.token()}` }, tls: { ca: h.ca } });
  if (res.status >= 200 && res.status < 300) return res.body;
  if (res.status === 401) {
    const arn = await identityArn(h);
    throw new AgentError(
      "permission",
      `cluster ${h.cluster} did not recognise the identity ${arn} (401 from the cluster itself). This is not a missing IAM permission: the identity has no cluster access entry. Create an access entry for ${arn} (or, on older clusters, an aws-auth ConfigMap mapping) in group runner-read, and apply ${ROLE_FILE}`,
      { missing: [`cluster access entry for ${arn}`], fix: `create an access entry for ${arn} in group runner-read; apply ${ROLE_FILE}` },
    );
  }
  if (res.status === 403) {
    throw new AgentError(
      "permission",
      `cluster ${h.cluster} refused ${opName} (403 from the cluster itself; needs ${permission}). This is not a missing IAM permission: the identity is known to the cluster but has no cluster role binding to the read role. Apply ${ROLE_FILE} (ClusterRole runner-read and its ClusterRoleBinding) and put the access entry in group runner-read`,
      { missing: [`cluster role binding (${permission})`], fix: `apply ${ROLE_FILE}; put the access entry in group runner-read` },
    );
  }
  if (res.status === 404) throw new AgentError("upstream", `${opName}: not found in cluster ${h.cluster}`);
  throw new AgentError("upstream", `${opName} failed: cluster ${h.cluster} answered ${res.status}`);
}

async function identityArn(h: EksHandle): Promise<string> {
  try {
    const { GetCallerIdentityCommand, STSClient } = await import("@aws-sdk/client-sts");
    const id = await callAws(h.aws, "sts:GetCallerIdentity", STSClient, new GetCallerIdentityCommand({}));
    return id.Arn ?? "the runner's IAM identity";
  } catch {
    return "the runner's IAM identity";
  }
}

const name = Type.String({ pattern: "^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$" });
const listArgs = Type.Object({ namespace: Type.Optional(name), labelSelector: Type.Optional(Type.String({ maxLength: 1024 })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }, { additionalProperties: false });
const getArgs = Type.Object({ namespace: name, name }, { additionalProperties: false });

interface Resource {
  resource: string;
  group: string; // "" is the core group
  version: string;
  verbs: ("get" | "list")[];
}

const RESOURCES: Resource[] = [
  { resource: "pods", group: "", version: "v1", verbs: ["get", "list"] },
  { resource: "services", group: "", version: "v1", verbs: ["get", "list"] },
  { resource: "endpoints", group: "", version: "v1", verbs: ["get", "list"] },
  { resource: "deployments", group: "apps", version: "v1", verbs: ["get"] },
  { resource: "ingresses", group: "networking.k8s.io", version: "v1", verbs: ["get", "list"] },
];

/** k8s-rbac permission spelling: `<apiGroup or core>/<resource>:<verb>`. */
export const rbac = (r: Resource, verb: string) => `${r.group || "core"}/${r.resource}:${verb}`;

function resourceOps(r: Resource): Operation<EksHandle>[] {
  const prefix = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  const ops: Operation<EksHandle>[] = [];
  if (r.verbs.includes("list")) {
    ops.push(
      op<EksHandle, any>({
        name: `eks.${r.resource}.list`,
        connector: "eks",
        access: "read",
        summary: `list ${r.resource} (one namespace, or all)`,
        permission: { system: "k8s-rbac", needs: [rbac(r, "list")] },
        args: listArgs,
        example: { namespace: "default" },
        run: (h, a) => callCluster(h, `eks.${r.resource}.list`, rbac(r, "list"), a.namespace ? `${prefix}/namespaces/${a.namespace}/${r.resource}` : `${prefix}/${r.resource}`, { labelSelector: a.labelSelector, limit: a.limit ?? 500 }),
      }),
    );
  }
  ops.push(
    op<EksHandle, any>({
      name: `eks.${r.resource}.get`,
      connector: "eks",
      access: "read",
      summary: `one ${r.resource.replace(/s$/, "")}`,
      permission: { system: "k8s-rbac", needs: [rbac(r, "get")] },
      args: getArgs,
      example: { namespace: "default", name: "api" },
      run: (h, a) => callCluster(h, `eks.${r.resource}.get`, rbac(r, "get"), `${prefix}/namespaces/${a.namespace}/${r.resource}/${a.name}`),
    }),
  );
  return ops;
}

export const eksConnector: Connector<EksHandle> = {
  name: "eks",
  unconfigured: (ctx) => (ctx.env[CLUSTER_ENV] ? null : "no cluster configured"),
  async open(ctx: AgentContext) {
    const cluster = ctx.env[CLUSTER_ENV]!;
    if (!ctx.env.RUNNER_AWS_CRED_MODE) throw new AgentError("not_configured", `${CLUSTER_ENV} is set but RUNNER_AWS_CRED_MODE is not (static or chain)`);
    const aws = await openAws(ctx);
    const { DescribeClusterCommand, EKSClient } = await import("@aws-sdk/client-eks");
    const out = await callAws(aws, "eks:DescribeCluster", EKSClient, new DescribeClusterCommand({ name: cluster }));
    const endpoint: string | undefined = out.cluster?.endpoint;
    const caData: string | undefined = out.cluster?.certificateAuthority?.data;
    if (!endpoint || !caData) throw new AgentError("upstream", `eks:DescribeCluster returned no endpoint or certificate authority for ${cluster} (status ${out.cluster?.status ?? "unknown"})`);
    return {
      aws,
      cluster,
      endpoint,
      ca: Buffer.from(caData, "base64").toString("utf8"),
      token: async () => clusterToken(await aws.resolvedCredentials(), aws.region, cluster),
    };
  },
  async health(h) {
    await callCluster(h, "eks health", rbac(RESOURCES[0]!, "list"), "/api/v1/pods", { limit: 1 });
    return { status: "ok", detail: `cluster ${h.cluster} at ${new URL(h.endpoint).host}: the runner-read role lists pods` };
  },
  operations: RESOURCES.flatMap(resourceOps),
};

export const EKS_RESOURCES = RESOURCES;
