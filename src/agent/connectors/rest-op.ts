import { type TSchema, Type } from "@sinclair/typebox";
import { op, type Operation, type PermissionSystem } from "../catalog.ts";
import type { Query } from "./http.ts";

// The shape shared by the REST connectors of issue 9: each operation is a declarative spec (name,
// permission, argument schema, example, how to build the request) and the connector supplies one
// `call` that authenticates and turns the platform's refusals into diagnostics.

export interface RestRequest {
  method?: "GET" | "POST";
  path: string;
  query?: Query;
  json?: unknown;
}

export interface RestSpec {
  name: string;
  summary: string;
  access?: "read" | "write";
  needs: string[];
  args: TSchema;
  example: any;
  request: (a: any) => RestRequest;
}

export type RestCall<H> = (h: H, spec: RestSpec, req: RestRequest) => Promise<unknown>;

export function restOperations<H>(connector: string, system: PermissionSystem, call: RestCall<H>, specs: RestSpec[]): Operation<H>[] {
  return specs.map((s) =>
    op<H, TSchema>({
      name: s.name,
      connector,
      access: s.access ?? "read",
      summary: s.summary,
      permission: { system, needs: s.needs },
      args: s.args,
      example: s.example,
      run: (h, a) => call(h, s, s.request(a)),
    }),
  );
}

/** One path segment, encoded (a user-supplied id can never add path components). */
export const seg = (v: string | number) => encodeURIComponent(String(v));

export const obj = (p: Record<string, TSchema>) => Type.Object(p, { additionalProperties: false });
export const str = Type.String({ minLength: 1 });
export const optStr = Type.Optional(str);
export const limit = (max: number) => Type.Optional(Type.Integer({ minimum: 1, maximum: max }));
