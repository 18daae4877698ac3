import type { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { productionChain } from "../connectors/aws/production-chain.ts";
import type { Env } from "../env.ts";
import { AgentError } from "../errors.ts";
import type { Redactor } from "./redactor.ts";

// Where connector credentials come from. `RUNNER_SECRET_STORE_MODE`:
//   env (default)           the process environment
//   aws-secrets-manager     secret `<RUNNER_SECRET_PREFIX>/<NAME>` in AWS Secrets Manager; the
//                           identity needs only secretsmanager:GetSecretValue on
//                           arn:aws:secretsmanager:<region>:<account>:secret:<prefix>/*
//                           (policies/aws/runner-secret-store.json). An environment value, when
//                           present, still wins so a single credential can be overridden locally.

export interface SecretSource {
  readonly mode: string;
  /** Set when RUNNER_SECRET_STORE_MODE and its variables are wrong: then every get() throws it. */
  readonly problem?: AgentError;
  get(name: string): Promise<string | undefined>;
}

export const SECRET_STORE_MODES = ["env", "aws-secrets-manager"] as const;

/** Never throws: a wrong store configuration is an error of each read, so that `run` reports it
 * as `<code>: <message>` and health still prints a row per connector. */
export function secretSourceFromEnv(env: Env, redactor: Redactor): SecretSource {
  const mode = env.RUNNER_SECRET_STORE_MODE ?? "env";
  if (mode === "env") return new EnvSecrets(env, redactor);
  if (mode !== "aws-secrets-manager") {
    return new MisconfiguredSecrets(
      mode,
      new AgentError("not_configured", `RUNNER_SECRET_STORE_MODE="${mode}" is not a known mode (${SECRET_STORE_MODES.join(", ")})`, {
        fix: `set RUNNER_SECRET_STORE_MODE to one of ${SECRET_STORE_MODES.join(", ")}, or unset it to read credentials from the environment`,
      }),
    );
  }
  const prefix = env.RUNNER_SECRET_PREFIX?.replace(/\/+$/, "");
  if (!prefix) {
    return new MisconfiguredSecrets(
      mode,
      new AgentError("not_configured", "RUNNER_SECRET_STORE_MODE=aws-secrets-manager needs RUNNER_SECRET_PREFIX (secrets are read as <prefix>/<NAME>)", {
        fix: "set RUNNER_SECRET_PREFIX to the prefix the identity may read (policies/aws/runner-secret-store.json)",
      }),
    );
  }
  return new AwsSecretsManagerSecrets(env, redactor, prefix);
}

class MisconfiguredSecrets implements SecretSource {
  constructor(
    readonly mode: string,
    readonly problem: AgentError,
  ) {}

  async get(): Promise<string | undefined> {
    throw this.problem;
  }
}

class EnvSecrets implements SecretSource {
  readonly mode: string = "env";
  constructor(
    protected readonly env: Env,
    protected readonly redactor: Redactor,
  ) {}

  async get(name: string): Promise<string | undefined> {
    const v = this.env[name] || undefined;
    this.redactor.add(v);
    return v;
  }
}

class AwsSecretsManagerSecrets extends EnvSecrets {
  override readonly mode = "aws-secrets-manager";
  private client: SecretsManagerClient | undefined;
  private readonly cache = new Map<string, Promise<string | undefined>>();

  constructor(
    env: Env,
    redactor: Redactor,
    private readonly prefix: string,
  ) {
    super(env, redactor);
  }

  override async get(name: string): Promise<string | undefined> {
    const local = await super.get(name);
    if (local) return local;
    let p = this.cache.get(name);
    if (!p) {
      p = this.fetch(name);
      this.cache.set(name, p);
    }
    return p;
  }

  private async fetch(name: string): Promise<string | undefined> {
    const id = `${this.prefix}/${name}`;
    const { GetSecretValueCommand, SecretsManagerClient } = await import("@aws-sdk/client-secrets-manager");
    // The store identity is the workload identity (the same production chain as chain mode, no
    // SSO); its only permission is the narrowed GetSecretValue statement.
    this.client ??= new SecretsManagerClient({
      region: this.env.RUNNER_AWS_REGION ?? this.env.AWS_REGION ?? "us-east-1",
      endpoint: this.env.RUNNER_SECRET_STORE_ENDPOINT_URL ?? this.env.RUNNER_AWS_ENDPOINT_URL,
      credentials: productionChain(this.env, this.redactor),
      maxAttempts: 1,
    });
    try {
      const out = await this.client.send(new GetSecretValueCommand({ SecretId: id }));
      const v = out.SecretString || undefined;
      this.redactor.add(v);
      return v;
    } catch (e) {
      const code = (e as { name?: string }).name;
      if (code === "ResourceNotFoundException") return undefined;
      if (code === "AccessDeniedException") {
        throw new AgentError(
          "permission",
          `secret store refused ${id}: the identity needs secretsmanager:GetSecretValue on arn:aws:secretsmanager:<region>:<account>:secret:${this.prefix}/* (policies/aws/runner-secret-store.json)`,
        );
      }
      throw new AgentError("upstream", `secret store: reading ${id} failed (${code ?? "error"})`);
    }
  }
}
