// Wire schema of `POST /api/profiling/captures` (request body, 202 answer, error bodies).
// The TypeBox schemas are the single source of the rules: the validator below checks each field
// against its own schema and words the 400 from the schema's description; /openapi.json publishes
// the same objects.
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { nameProblem, textProblem } from "./names.ts";
import { JsonSyntaxError, parseStrictJson } from "./strict-json.ts";

export const CaptureKind = Type.Union([Type.Literal("head"), Type.Literal("replicate")]);
export type CaptureKind = Static<typeof CaptureKind>;

const Duration = Type.Number({ minimum: 5, maximum: 300, description: "must be a number from 5 to 300 (seconds)" });
const Warmup = Type.Number({ minimum: 0, maximum: 60, description: "must be a number from 0 to 60 (seconds)" });

export const CaptureRequestBody = Type.Object(
  {
    workload: Type.String({ minLength: 1, maxLength: 256, description: "must be a non-empty string of at most 256 characters (process name as in the target list, whose grammar it follows: no control characters, no \"/\", no surrounding whitespace, at most 255 bytes of UTF-8)" }),
    version: Type.String({ minLength: 1, maxLength: 256, description: "must be a non-empty string of at most 256 characters, without control characters" }),
    env: Type.Optional(Type.String({ maxLength: 256, default: "", description: "must be a string of at most 256 characters without control characters (may be empty)" })),
    kind: Type.Optional({ default: "head", description: 'must be "head" or "replicate"', ...CaptureKind }),
    duration_sec: Type.Optional({ ...Duration, default: 60 }),
    durationSec: Type.Optional({ ...Duration, description: `alias of duration_sec; ${Duration.description}` }),
    warmup_sec: Type.Optional({ ...Warmup, default: 5 }),
    warmupSec: Type.Optional({ ...Warmup, description: `alias of warmup_sec; ${Warmup.description}` }),
  },
  { additionalProperties: false },
);
export type CaptureRequestBody = Static<typeof CaptureRequestBody>;

/**
 * A request after defaults and aliases are applied: what the store keeps and dedupes on. Named in
 * TypeScript's case like the record that extends it (store/types.ts CaptureRecord); the wire's
 * snake_case (duration_sec, warmup_sec) stays on the wire: the body above, the capture order
 * (tunnel.ts) and the record's JSON (server/records/capture-json.ts).
 */
export interface CaptureRequest {
  workload: string;
  version: string;
  env: string;
  kind: CaptureKind;
  durationSec: number;
  warmupSec: number;
}

export const CaptureAccepted = Type.Object({
  request_id: Type.String(),
  status: Type.Literal("queued"),
  deduped: Type.Boolean(),
});
export type CaptureAccepted = Static<typeof CaptureAccepted>;

export const ErrorBody = Type.Object({
  error: Type.String({ description: "human-readable reason; for a 400 it names the offending field" }),
  field: Type.Optional(Type.String({ description: "the offending field (400 only)" })),
});
export type ErrorBody = Static<typeof ErrorBody>;

export const RateLimitedBody = Type.Object({
  error: Type.String(),
  retry_after_seconds: Type.Integer({ minimum: 1 }),
});
export type RateLimitedBody = Static<typeof RateLimitedBody>;

export type ParseResult = { ok: true; value: CaptureRequest } | { ok: false; field: string | null; error: string };

const properties = CaptureRequestBody.properties as Record<string, TSchema>;
const checks = new Map<string, TypeCheck<TSchema>>(
  Object.entries(properties).map(([k, s]) => [k, TypeCompiler.Compile(s)]),
);
const ALIASES: Array<[canonical: "duration_sec" | "warmup_sec", alias: string]> = [
  ["duration_sec", "durationSec"],
  ["warmup_sec", "warmupSec"],
];

/** The defaults of the optional fields, read from the schema (its `default`s are what /openapi.json publishes). */
export const CAPTURE_DEFAULTS = {
  env: properties.env!.default as string,
  kind: properties.kind!.default as CaptureKind,
  duration_sec: properties.duration_sec!.default as number,
  warmup_sec: properties.warmup_sec!.default as number,
};

function bad(field: string | null, error: string): ParseResult {
  return { ok: false, field, error };
}

/** The target list's grammar (names.ts): the workload is a process name, the rest is text. */
function namesProblem(input: Record<string, unknown>): ParseResult | undefined {
  const workload = nameProblem(input.workload as string, "workload");
  if (workload) return bad("workload", `workload ${workload}`);
  for (const key of ["version", "env"] as const) {
    const problem = typeof input[key] === "string" ? textProblem(input[key]) : undefined;
    if (problem) return bad(key, `${key} ${problem}`);
  }
  return undefined;
}

/** Validates raw body text; every refusal names the field at fault (or the body itself). */
export function parseCaptureRequest(text: string): ParseResult {
  if (text.trim() === "") return bad(null, "request body is empty; expected a JSON object with workload and version");
  let body: unknown;
  try {
    // Strict: a key sent twice is refused, not silently overwritten by its last value.
    body = parseStrictJson(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError && err.repeatedKey !== undefined) {
      return bad(err.repeatedKey, `${err.repeatedKey} appears more than once in the request body (line ${err.line}, column ${err.column}); send it once`);
    }
    return bad(null, `request body is not valid JSON${err instanceof JsonSyntaxError ? `: ${err.message}` : ""}`);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return bad(null, "request body must be a JSON object");
  }
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!checks.has(key)) return bad(key, `unknown field "${key}"`);
  }
  for (const key of ["workload", "version"]) {
    if (!(key in input)) return bad(key, `${key} is required`);
  }
  for (const [key, value] of Object.entries(input)) {
    if (!checks.get(key)!.Check(value)) return bad(key, `${key} ${properties[key]!.description}`);
  }
  const grammar = namesProblem(input);
  if (grammar) return grammar;
  for (const [canonical, alias] of ALIASES) {
    if (canonical in input && alias in input && input[canonical] !== input[alias]) {
      return bad(canonical, `${canonical} and ${alias} are both given with different values; send one`);
    }
  }
  const pick = (canonical: "duration_sec" | "warmup_sec", alias: string) => (input[canonical] ?? input[alias] ?? CAPTURE_DEFAULTS[canonical]) as number;
  return {
    ok: true,
    value: {
      workload: input.workload as string,
      version: input.version as string,
      env: (input.env as string | undefined) ?? CAPTURE_DEFAULTS.env,
      kind: (input.kind as CaptureKind | undefined) ?? CAPTURE_DEFAULTS.kind,
      durationSec: pick("duration_sec", "durationSec"),
      warmupSec: pick("warmup_sec", "warmupSec"),
    },
  };
}
