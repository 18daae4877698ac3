import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from "@smithy/types";
import type { AgentContext } from "../../context.ts";
import { awsCredentials } from "./credentials.ts";

// One handle per Agent invocation: the region, the credentials and a lazily built client per
// service. RUNNER_AWS_ENDPOINT_URL points every client at one address (a VPC endpoint proxy, or
// the local fake in tests).

type ClientCtor<T> = new (config: any) => T;

export class AwsHandle {
  private readonly clients = new Map<unknown, unknown>();

  constructor(
    readonly region: string,
    readonly endpoint: string | undefined,
    readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider,
  ) {}

  client<T>(Ctor: ClientCtor<T>): T {
    let c = this.clients.get(Ctor) as T | undefined;
    if (!c) {
      // One attempt: retries belong to the caller, and a refused call should surface at once.
      c = new Ctor({ region: this.region, endpoint: this.endpoint, credentials: this.credentials, maxAttempts: 1 });
      this.clients.set(Ctor, c);
    }
    return c;
  }

  async resolvedCredentials(): Promise<AwsCredentialIdentity> {
    return typeof this.credentials === "function" ? this.credentials() : this.credentials;
  }
}

export async function openAws(ctx: AgentContext): Promise<AwsHandle> {
  const region = ctx.env.RUNNER_AWS_REGION ?? ctx.env.AWS_REGION ?? "us-east-1";
  return new AwsHandle(region, ctx.env.RUNNER_AWS_ENDPOINT_URL || undefined, await awsCredentials(ctx));
}
