import { fromHttp } from "@aws-sdk/credential-provider-http";
import { fromTokenFile } from "@aws-sdk/credential-provider-web-identity";
import { fromInstanceMetadata } from "@smithy/credential-provider-imds";
import type { AwsCredentialIdentityProvider } from "@smithy/types";
import type { Redactor } from "../../credentials/redactor.ts";
import type { Env } from "../../env.ts";
import { AgentError } from "../../errors.ts";

// The workload identity of AWS chain mode, shared by the AWS connector (RUNNER_AWS_CRED_MODE=chain)
// and the secret store (RUNNER_SECRET_STORE_MODE=aws-secrets-manager). It takes the environment and
// the redactor, not the Agent context: the context is built from the secret store, so reading it
// here would make the two import each other.
//
// Web identity (EKS IRSA), then the container endpoint (ECS, EKS Pod Identity), then the standard
// AWS_* keys of the environment, then the instance profile. Unlike the SDK's default chain it
// leaves out interactive SSO login and shared profile files: sso:* belongs to a development path
// and is not granted in production.

export function productionChain(env: Env, redactor: Redactor): AwsCredentialIdentityProvider {
  // Every provider reads the configuration it was given, never the process environment behind
  // the Agent's back.
  const providers: AwsCredentialIdentityProvider[] = [];
  if (env.AWS_WEB_IDENTITY_TOKEN_FILE && env.AWS_ROLE_ARN) {
    providers.push(fromTokenFile({ webIdentityTokenFile: env.AWS_WEB_IDENTITY_TOKEN_FILE, roleArn: env.AWS_ROLE_ARN, roleSessionName: env.AWS_ROLE_SESSION_NAME ?? "runner-agent" }));
  }
  if (env.AWS_CONTAINER_CREDENTIALS_FULL_URI || env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI) {
    providers.push(
      fromHttp({
        awsContainerCredentialsFullUri: env.AWS_CONTAINER_CREDENTIALS_FULL_URI,
        awsContainerCredentialsRelativeUri: env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI,
        awsContainerAuthorizationToken: env.AWS_CONTAINER_AUTHORIZATION_TOKEN,
        awsContainerAuthorizationTokenFile: env.AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE,
      }),
    );
  }
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN: sessionToken } = env;
  if (accessKeyId && secretAccessKey) providers.push(async () => ({ accessKeyId, secretAccessKey, sessionToken }));
  if (env.AWS_EC2_METADATA_DISABLED !== "true") providers.push(fromInstanceMetadata({ timeout: 1000, maxRetries: 1 }));
  return async () => {
    const failures: string[] = [];
    for (const p of providers) {
      try {
        const c = await p();
        redactor.add(c.accessKeyId);
        redactor.add(c.secretAccessKey);
        redactor.add(c.sessionToken);
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
