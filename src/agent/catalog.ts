import type { Static, TSchema } from "@sinclair/typebox";
import type { AgentContext } from "./context.ts";
import { AgentError } from "./errors.ts";

// The catalog is the complete list of what the Agent can do. Anything not in it does not exist:
// enforcement refuses it before arguments are looked at and before any connector code runs.
// Each connector contributes its operations from its own file (connectors/<platform>.ts).

/** The only writes the Agent may ever perform (reference: "Connector credentials: general"). */
export const ALLOWED_WRITES = [
  "chat.postMessage",
  "chat.createChannel",
  "ticket.createIssue",
  "ticket.addComment",
  "ticket.transitionIssue",
] as const;

/** How a permission is expressed in the third-party system the operation talks to. */
export type PermissionSystem =
  | "aws-iam" // IAM action, e.g. ec2:DescribeInstances
  | "k8s-rbac" // apiGroup/resource:verb, e.g. apps/deployments:get
  | "gcp-role" // project role, e.g. roles/monitoring.viewer
  | "datadog-scope" // application key scope
  | "grafana-scope" // access-policy scope
  | "oauth-scope" // bot/user token scopes (chat, ...)
  | "github" // fine-grained token permission plus the classic scope that grants the same
  | "platform"; // a platform-specific permission named in words

export interface Permission {
  system: PermissionSystem;
  /** Everything this operation needs, verbatim as the third party names it. */
  needs: string[];
}

export interface Operation<H = unknown, S extends TSchema = TSchema> {
  name: string;
  connector: string;
  access: "read" | "write";
  summary: string;
  permission: Permission;
  args: S;
  /** Arguments that make a valid call; shown by `agent catalog --json` and used in tests. */
  example: Static<S>;
  /**
   * Checks of configuration and arguments that need no credential (a variable the operation
   * depends on, the read-only SQL guard). Enforcement runs it before the connector is opened, so
   * a broken credential can never hide an explicit configuration error.
   */
  preflight?(args: Static<S>, ctx: AgentContext): void;
  run(handle: H, args: Static<S>, ctx: AgentContext): Promise<unknown>;
}

export interface HealthReport {
  status: "ok" | "skipped" | "error";
  detail: string;
  /** Permissions the credential lacks (for `error`, or optional ones noted on `ok`). */
  missing?: string[];
  /** What to do about it, in words a person can follow. */
  fix?: string;
}

export interface Connector<H = unknown> {
  name: string;
  /** null when the environment configures this connector, otherwise why it is not configured. */
  unconfigured(ctx: AgentContext): string | null;
  /**
   * Configuration errors the connector can tell without a credential (a malformed variable). Run
   * by health before `open`, so a broken credential never hides them.
   */
  preflight?(ctx: AgentContext): void;
  /** Builds clients/credentials. Runs only after enforcement accepted an operation. */
  open(ctx: AgentContext): Promise<H>;
  health(handle: H, ctx: AgentContext): Promise<HealthReport>;
  operations: Operation<H>[];
}

/** Helper so each operation's `run` sees its arguments typed from its own schema. */
export function op<H, S extends TSchema>(o: Operation<H, S>): Operation<H> {
  return o as unknown as Operation<H>;
}

export class Catalog {
  private readonly ops = new Map<string, Operation>();
  private readonly byConnector = new Map<string, Connector>();

  constructor(connectors: Connector<any>[]) {
    for (const c of connectors) {
      if (this.byConnector.has(c.name)) throw new Error(`catalog: connector ${c.name} registered twice`);
      this.byConnector.set(c.name, c);
      for (const o of c.operations) this.register(c, o);
    }
  }

  private register(c: Connector<any>, o: Operation<any>): void {
    if (o.connector !== c.name) throw new Error(`catalog: ${o.name} claims connector ${o.connector}, registered by ${c.name}`);
    if (this.ops.has(o.name)) throw new Error(`catalog: operation ${o.name} registered twice`);
    // The read-only promise is structural: a write outside the five cannot enter the catalog.
    if (o.access === "write" && !(ALLOWED_WRITES as readonly string[]).includes(o.name)) {
      throw new Error(`catalog: ${o.name} is a write and is not one of the allowed writes (${ALLOWED_WRITES.join(", ")})`);
    }
    if (o.permission.needs.length === 0) throw new Error(`catalog: ${o.name} declares no permission`);
    this.ops.set(o.name, o);
  }

  lookup(name: string): Operation {
    const o = this.ops.get(name);
    if (!o) throw new AgentError("not_in_catalog", `operation "${name}" is not in the catalog; the Agent refuses it`);
    return o;
  }

  has(name: string): boolean {
    return this.ops.has(name);
  }

  connector(name: string): Connector {
    const c = this.byConnector.get(name);
    if (!c) throw new Error(`catalog: no connector ${name}`);
    return c;
  }

  operations(): Operation[] {
    return [...this.ops.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  connectors(): Connector[] {
    return [...this.byConnector.values()];
  }
}
