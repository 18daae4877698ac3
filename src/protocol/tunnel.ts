// Messages on the tunnel (wss://HOST:PORT/tunnel) between the control plane and a Profiler.
//
// Handshake: the server speaks first with a random challenge; the Profiler answers with its tenant,
// instance id and an ed25519 signature over TUNNEL_SIGNING_CONTEXT | challenge | tenant | instance id,
// made with the key it enrolled. No credential ever appears in the URL. Until `welcome`, the server
// accepts nothing else: any other frame, or a frame over HELLO_MAX_BYTES, closes the connection, and
// so does no hello within HELLO_DEADLINE_MS of connecting. JSON text frames only.

import { Type, type Static } from "@sinclair/typebox";
import { ProbeName } from "./profile-stream.ts";

export const TUNNEL_PATH = "/tunnel";
export const TUNNEL_SIGNING_CONTEXT = "runner-tunnel-v1";
/** Both ends send a heartbeat this often and drop a peer silent for HEARTBEAT_DEAD_MS. */
export const HEARTBEAT_INTERVAL_MS = 10_000;
export const HEARTBEAT_DEAD_MS = 30_000;

/** A connection must be welcomed this long after it was accepted, whatever it sends meanwhile. */
export const HELLO_DEADLINE_MS = 10_000;
/** The bounds of a hello; the largest hello they allow (6 bytes of JSON a character at worst) fits
 *  in HELLO_MAX_BYTES, the frame limit before `welcome` (test/unit/tunnel-frames.test.ts). */
export const HELLO_NAME_CHARS = 200;
export const HELLO_RUNNING_MAX = 64;
export const HELLO_REQUEST_ID_CHARS = 64;
export const HELLO_MAX_BYTES = 8 * 1024;

export function handshakeMessage(challenge: string, tenant: string, instanceId: string): Uint8Array {
  return new TextEncoder().encode([TUNNEL_SIGNING_CONTEXT, challenge, tenant, instanceId].join("\n"));
}

/** A capture's request id (a UUID) as a Profiler names it back. */
const RequestId = Type.String({ maxLength: HELLO_REQUEST_ID_CHARS, pattern: "^[A-Za-z0-9-]*$" });
/** Why a capture was refused or failed, as a Profiler says it: stored on the record and logged, so
 *  bounded; the Profiler cuts a longer one (clipReason) rather than have its answer refused. */
export const REASON_MAX_CHARS = 4000;
const Reason = Type.String({ maxLength: REASON_MAX_CHARS });
export const clipReason = (why: string): string => (why.length <= REASON_MAX_CHARS ? why : `${why.slice(0, REASON_MAX_CHARS - 1)}…`);

const CaptureOrder = Type.Object({
  request_id: Type.String(),
  workload: Type.String(),
  version: Type.String(),
  env: Type.String(),
  kind: Type.Union([Type.Literal("head"), Type.Literal("replicate")]),
  duration_sec: Type.Number(),
  warmup_sec: Type.Number(),
});
export type CaptureOrder = Static<typeof CaptureOrder>;

/** The bounds of Instrumentation.notes: at most 48 KB of JSON even in three-byte characters, within
 *  the 64 KiB a result frame allows beside its profile (profile-limits.ts MAX_TUNNEL_FRAME_BYTES). */
export const COLLECTOR_NOTES_MAX = 16;
export const COLLECTOR_NOTE_CHARS = 1000;

export const Instrumentation = Type.Object({
  /** Probes requested (M) and attached (N); "fully instrumented" when N = M. */
  requested: Type.Array(ProbeName),
  attached: Type.Array(ProbeName),
  not_attached: Type.Array(Type.Object({ probe: ProbeName, reason: Reason })),
  /** Axes where more than 5% of the measured value is in stacks that could not be walked to their
   * root (ptop's `summary.incomplete`): callers and inclusive figures are incomplete there. */
  incomplete: Type.Optional(Type.Array(Type.Object({ axis: ProbeName, share: Type.Number() }))),
  /** Axes where more than 5% of the samples taken are in no stack (ptop's `summary.lost` over
   * `summary.samples`: ring buffer full, or the unwinder's aggregate full or out of memory): the
   * capture holds fewer samples than were taken. */
  lost: Type.Optional(Type.Array(Type.Object({ axis: ProbeName, share: Type.Number() }))),
  /** The collector's caveats about this capture (ptop's `summary.notes`: a Python version it cannot
   * read, kernel frames left unsymbolized, processes the alloc probe could not reach …), bounded:
   * at most COLLECTOR_NOTES_MAX, each at most COLLECTOR_NOTE_CHARS. */
  notes: Type.Optional(Type.Array(Type.String({ maxLength: COLLECTOR_NOTE_CHARS }), { maxItems: COLLECTOR_NOTES_MAX })),
});
export type Instrumentation = Static<typeof Instrumentation>;

/** server → profiler */
export const ServerMessage = Type.Union([
  Type.Object({ type: Type.Literal("challenge"), challenge: Type.String() }),
  Type.Object({ type: Type.Literal("welcome"), instance_id: Type.String() }),
  Type.Object({ type: Type.Literal("heartbeat"), at: Type.Number() }),
  Type.Object({ type: Type.Literal("capture"), order: CaptureOrder }),
  Type.Object({
    type: Type.Literal("local_capture_answer"),
    id: Type.String(),
    status: Type.Integer(),
    body: Type.String(),
    retry_after: Type.Optional(Type.String()),
  }),
]);
export type ServerMessage = Static<typeof ServerMessage>;

/** profiler → server */
export const ProfilerMessage = Type.Union([
  Type.Object({
    type: Type.Literal("hello"),
    tenant: Type.String({ maxLength: HELLO_NAME_CHARS }),
    instance_id: Type.String({ maxLength: HELLO_NAME_CHARS }),
    /** ed25519, 64 bytes in base64 */
    signature: Type.String({ maxLength: 88 }),
    /** request ids this Profiler is still running (after a reconnect): the server must not fail them. */
    running: Type.Optional(Type.Array(RequestId, { maxItems: HELLO_RUNNING_MAX })),
  }),
  Type.Object({ type: Type.Literal("heartbeat"), at: Type.Number() }),
  // First answer to a capture order: refused (not in the list), nothing to push (not running here),
  // or running (ptop started).
  Type.Object({
    type: Type.Literal("answer"),
    request_id: RequestId,
    answer: Type.Union([Type.Literal("refused"), Type.Literal("nothing_to_push"), Type.Literal("running")]),
    reason: Type.Optional(Reason),
  }),
  // Final answer of a capture that ran.
  Type.Object({
    type: Type.Literal("result"),
    request_id: RequestId,
    outcome: Type.Union([Type.Literal("pushed"), Type.Literal("nothing_to_push"), Type.Literal("failed")]),
    reason: Type.Optional(Reason),
    instrumentation: Type.Optional(Instrumentation),
    /** the ptop stream, gzip, base64 */
    profile_gz_b64: Type.Optional(Type.String()),
  }),
  // A sidecar's request received on RUNNER_LOCAL_LISTEN, bridged to the control plane's rules.
  Type.Object({
    type: Type.Literal("local_capture"),
    id: Type.String(),
    authorization: Type.String(),
    /** the sidecar's request body, read by the API's own rules (over 16 KiB: 413) */
    body: Type.String(),
  }),
]);
export type ProfilerMessage = Static<typeof ProfilerMessage>;
