// Enrolment of a Profiler at RUNNER_ENROLL_URL (POST /api/profiler/enroll).
//
// The tenant travels in a header, not in the body: the control plane must refuse with 403 when the
// organization has not enabled the Profiler *before* it looks at the bootstrap token or the body
// (reference document: "Enrolment while the Profiler is not enabled → 403, before anything else").
// The bootstrap token travels in the Authorization header so that it never lands in a URL.
// The target list is deliberately absent: it never leaves the node.

import { Type, type Static } from "@sinclair/typebox";

export const ENROL_PATH = "/api/profiler/enroll";
export const TENANT_HEADER = "x-runner-tenant";

export const ArtifactClass = Type.Union([Type.Literal("profiler"), Type.Literal("agent")]);
export type ArtifactClass = Static<typeof ArtifactClass>;

export const EnrolRequest = Type.Object(
  {
    instance_id: Type.String({ minLength: 1, maxLength: 200 }),
    class: ArtifactClass,
    /** ed25519 public key, base64 (32 bytes). */
    public_key: Type.String({ minLength: 40, maxLength: 64 }),
    version: Type.Optional(Type.String({ maxLength: 64 })),
    arch: Type.Optional(Type.String({ maxLength: 32 })),
  },
  { additionalProperties: false },
);
export type EnrolRequest = Static<typeof EnrolRequest>;

export const EnrolResponse = Type.Object({
  instance_id: Type.String(),
  /** true when this identity was already enrolled with the same key (idempotent re-enrolment). */
  already_enrolled: Type.Boolean(),
});
export type EnrolResponse = Static<typeof EnrolResponse>;
