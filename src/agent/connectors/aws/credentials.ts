import { fromEnv } from "@aws-sdk/credential-provider-env";
import { fromHttp } from "@aws-sdk/credential-provider-http";
import { fromTokenFile } from "@aws-sdk/credential-provider-web-identity";
import { fromContainerMetadata, fromInstanceMetadata } from "@smithy/credential-provider-imds";
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from "@smithy/types";
import type { AgentContext } from "../../context.ts";
import { AgentError } from "../../errors.ts";

// RUNNER_AWS_CRED_MODE:
//   static  keys from RUNNER_AWS_ACCESS_KEY_ID / RUNNER_AWS_SECRET_ACCESS_KEY (/ RUNNER_AWS_SESSION_TOKEN),
//           read through the secret source (environment or secret store).
//   chain   workload identity, then the ECS / EKS Pod Identity container endpoint, then the
//           instance profile, then the standard AWS_* environment keys. Unlike the SDK's default
//           chain it leaves out the interactive SSO login and shared profile files: sso:* belongs
//           to a development path and is not granted in production.

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
  if (mode === "chain") return productionChain(ctx);
  throw new AgentError("not_configured", `RUNNER_AWS_CRED_MODE must be one of ${AWS_CRED_MODES.join(", ")}`);
}

function productionChain(ctx: AgentContext): AwsCredentialIdentityProvider {
  const env = ctx.env;
  const providers: AwsCredentialIdentityProvider[] = [];
  if (env.AWS_WEB_IDENTITY_TOKEN_FILE && env.AWS_ROLE_ARN) providers.push(fromTokenFile({}));
  if (env.AWS_CONTAINER_CREDENTIALS_FULL_URI) providers.push(fromHttp({}));
  else if (env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI) providers.push(fromContainerMetadata());
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) providers.push(fromEnv());
  if (env.AWS_EC2_METADATA_DISABLED !== "true") providers.push(fromInstanceMetadata({ timeout: 1000, maxRetries: 1 }));
  return async () => {
    const failures: string[] = [];
    for (const p of providers) {
      try {
        const c = await p();
        ctx.redactor.add(c.secretAccessKey);
        ctx.redactor.add(c.sessionToken);
        return c;
      } catch (e) {
        failures.push(e instanceof Error ? e.name : "error");
      }
    }
    throw new AgentError(
      "not_configured",
      `RUNNER_AWS_CRED_MODE=chain found no workload identity, container credentials or instance profile (${failures.join(", ") || "no provider applies"})`,
    );
  };
}
