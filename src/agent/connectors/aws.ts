import type { Connector } from "../catalog.ts";
import { AWS_CRED_MODES } from "./aws/credentials.ts";
import { type AwsHandle, openAws } from "./aws/handle.ts";
import { computeOperations } from "./aws/operations-compute.ts";
import { contextAndCostOperations } from "./aws/operations-context-cost.ts";
import { dataAndNetworkOperations } from "./aws/operations-data-network.ts";
import { observabilityAndSecurityOperations } from "./aws/operations-observability-security.ts";
import { queryOperations } from "./aws/operations-queries.ts";
import { callAws } from "./aws/sdk-operation.ts";

// AWS (cloud A): read-only, every IAM action it calls is in policies/aws/runner-read-only.json
// and every action there is used by some operation (test/unit/agent-aws-policy.test.ts).

export const awsConnector: Connector<AwsHandle> = {
  name: "aws",
  unconfigured: (ctx) => (ctx.env.RUNNER_AWS_CRED_MODE ? null : `RUNNER_AWS_CRED_MODE is not set (${AWS_CRED_MODES.join(" or ")})`),
  open: openAws,
  async health(h) {
    const { GetCallerIdentityCommand, STSClient } = await import("@aws-sdk/client-sts");
    const id = await callAws(h, "sts:GetCallerIdentity", STSClient, new GetCallerIdentityCommand({}));
    return { status: "ok", detail: `account ${id.Account} as ${id.Arn} in ${h.region}` };
  },
  operations: [
    ...contextAndCostOperations,
    ...computeOperations,
    ...dataAndNetworkOperations,
    ...observabilityAndSecurityOperations,
    ...queryOperations,
  ],
};
