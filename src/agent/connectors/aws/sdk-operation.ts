import { type Static, type TObject, type TProperties, Type } from "@sinclair/typebox";
import { op, type Operation } from "../../catalog.ts";
import { diagnoseAwsError } from "./diagnose.ts";
import type { AwsHandle } from "./handle.ts";

// Most AWS operations are one SDK command whose input is the operation's arguments, passed
// through as the AWS API names them. Each declares the single IAM action it calls.

type ClientCtor = new (config: any) => { send(command: any): Promise<any> };
type CommandCtor = new (input: any) => unknown;

export interface SdkReadSpec<M, P extends TProperties> {
  name: string;
  action: string;
  summary: string;
  /** The SDK module, loaded on first use, and the client and command names it exports. */
  sdk: () => Promise<M>;
  client: keyof M & string;
  command: keyof M & string;
  args: P;
  example: Static<TObject<P>>;
  /** Converts JSON arguments to SDK input where types differ (timestamps are Date objects). */
  input?: (args: Static<TObject<P>>) => unknown;
}

export function sdkRead<M, P extends TProperties>(spec: SdkReadSpec<M, P>): Operation<AwsHandle> {
  return op<AwsHandle, TObject<P>>({
    name: spec.name,
    connector: "aws",
    access: "read",
    summary: spec.summary,
    permission: { system: "aws-iam", needs: [spec.action] },
    args: Type.Object(spec.args, { additionalProperties: false }),
    example: spec.example,
    run: async (h, args) => {
      const mod = (await spec.sdk()) as Record<string, unknown>;
      const Client = mod[spec.client] as ClientCtor;
      const Command = mod[spec.command] as CommandCtor;
      return callAws(h, spec.action, Client, new Command(spec.input ? spec.input(args) : args));
    },
  });
}

/** Sends one command and returns its output without SDK metadata; failures are diagnosed. */
export async function callAws(h: AwsHandle, action: string, Client: ClientCtor, command: unknown): Promise<any> {
  try {
    const { $metadata: _m, ...out } = await h.client(Client).send(command);
    return out;
  } catch (e) {
    throw diagnoseAwsError(action, e);
  }
}

// Argument shapes shared by many AWS read operations.
export const A = {
  str: Type.String({ minLength: 1 }),
  optStr: Type.Optional(Type.String({ minLength: 1 })),
  optStrs: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  strs: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  optInt: Type.Optional(Type.Integer({ minimum: 1 })),
  optBool: Type.Optional(Type.Boolean()),
  optEpochMs: Type.Optional(Type.Integer({ minimum: 0 })),
  date: Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}T" }),
  day: Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$" }),
  filters: Type.Optional(Type.Array(Type.Object({ Name: Type.String(), Values: Type.Array(Type.String()) }, { additionalProperties: false }))),
  json: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
};

export const period = Type.Object({ Start: A.day, End: A.day }, { additionalProperties: false });
