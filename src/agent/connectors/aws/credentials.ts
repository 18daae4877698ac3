import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from "@smithy/types";
import type { AgentContext } from "../../context.ts";
import { AgentError } from "../../errors.ts";
import { productionChain } from "./production-chain.ts";

// RUNNER_AWS_CRED_MODE:
//   static  keys from RUNNER_AWS_ACCESS_KEY_ID / RUNNER_AWS_SECRET_ACCESS_KEY (/ RUNNER_AWS_SESSION_TOKEN),
//           read through the secret source (environment or secret store).
//   chain   the workload identity, without SSO or profile files (production-chain.ts).

export const AWS_CRED_MODES = ["static", "chain"] as const;

export async function awsCredentials(ctx: AgentContext): Promise<AwsCredentialIdentity | AwsCredentialIdentityProvider> {
  const mode = ctx.env.RUNNER_AWS_CRED_MODE;
  if (mode === "static") {
    const accessKeyId = await ctx.secrets.get("RUNNER_AWS_ACCESS_KEY_ID");
    const secretAccessKey = await ctx.secrets.get("RUNNER_AWS_SECRET_ACCESS_KEY");
    const sessionToken = await ctx.secrets.get("RUNNER_AWS_SESSION_TOKEN");
    if (!accessKeyId || !secretAccessKey) {
      throw new AgentError(
        "not_configured",
        "RUNNER_AWS_CRED_MODE=static needs RUNNER_AWS_ACCESS_KEY_ID and RUNNER_AWS_SECRET_ACCESS_KEY",
      );
    }
    return { accessKeyId, secretAccessKey, sessionToken };
  }
  if (mode === "chain") return productionChain(ctx.env, ctx.redactor);
  throw new AgentError("not_configured", `RUNNER_AWS_CRED_MODE must be one of ${AWS_CRED_MODES.join(", ")}`);
}
