// POST /api/profiler/enroll: a Profiler registers the public key of its identity for its instance
// id, proved by the tenant's bootstrap token.
//
// Order of checks (each answers before the next is looked at):
//   403  the organization named by the tenant header is unknown or has not enabled the Profiler
//        (reference: "refused with status 403 before anything else" — no token or body is read)
//   401  bootstrap token missing, malformed, revoked or of another organization
//   400  body is not the EnrolRequest schema (the message names the field)
//   409  the instance id is enrolled with another key or class
//   200  enrolled (or already enrolled with this very key: idempotent)

import { Value } from "@sinclair/typebox/value";
import type { Logger } from "../../log.ts";
import { ed25519PublicKeyProblem } from "../../protocol/ed25519-public-key.ts";
import { textProblem } from "../../protocol/names.ts";
import { EnrolRequest, TENANT_HEADER, type EnrolResponse } from "../../protocol/enrol.ts";
import { BOOTSTRAP_TOKEN_PREFIX, hashToken, isWellFormedToken } from "../../protocol/token-format.ts";
import type { HttpAnswer } from "../captures/queue-capture.ts";
import { readBoundedBody } from "../captures/read-body.ts";
import type { Store } from "../store/store.ts";
import { StoreError } from "../store/types.ts";
import { presentedToken } from "../tokens/authenticate.ts";

const MAX_ENROL_BODY = 4 * 1024;

export async function enrolRequest(deps: { store: Store; logger: Logger; now: () => number }, request: Request): Promise<HttpAnswer> {
  const tenant = request.headers.get(TENANT_HEADER) ?? "";
  const org = tenant ? await deps.store.getOrg(tenant) : null;
  if (!org || !org.profilerEnabled) {
    // Unknown and not-enabled look the same from outside: no probing for organization names.
    return { status: 403, body: { error: "the Profiler is not enabled for this organization (Settings → Profiler)" } };
  }

  const token = presentedToken(request.headers.get("authorization"), null);
  if (!token || !isWellFormedToken(token, BOOTSTRAP_TOKEN_PREFIX)) {
    return { status: 401, body: { error: `missing or malformed bootstrap token: send Authorization: Bearer ${BOOTSTRAP_TOKEN_PREFIX}_…` } };
  }
  // Looked up by the SHA-256 of a 256-bit random token: the index comparison leaks nothing an
  // attacker can steer toward a valid token, so no separate constant-time step is needed here.
  const owner = await deps.store.findBootstrapToken(hashToken(token));
  if (!owner || owner.id !== org.id) {
    return { status: 401, body: { error: "invalid or revoked bootstrap token for this organization" } };
  }

  const body = await readBoundedBody(request, MAX_ENROL_BODY);
  if (!body.ok) return { status: body.status, body: { error: body.error } };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.text);
  } catch {
    return { status: 400, body: { error: "body is not valid JSON" } };
  }
  const firstError = Value.Errors(EnrolRequest, parsed).First();
  if (firstError) {
    const field = firstError.path.replace(/^\//, "") || "body";
    return { status: 400, body: { error: `${field}: ${firstError.message}` } };
  }
  const req = parsed as EnrolRequest;
  // Shown in Settings and logs beside the org's records: the same text rule as a capture's fields.
  for (const field of ["instance_id", "version", "arch"] as const) {
    const problem = req[field] === undefined ? undefined : textProblem(req[field]);
    if (problem) return { status: 400, body: { error: `${field}: ${problem}` } };
  }
  const keyProblem = await ed25519PublicKeyProblem(req.public_key);
  if (keyProblem) return { status: 400, body: { error: `public_key: ${keyProblem}` } };

  try {
    const { alreadyEnrolled } = await deps.store.enrolInstance(org.id, req.instance_id, req.class, req.public_key, deps.now());
    deps.logger.info({ org: org.name, instance_id: req.instance_id, class: req.class, already_enrolled: alreadyEnrolled }, "instance enrolled");
    const res: EnrolResponse = { instance_id: req.instance_id, already_enrolled: alreadyEnrolled };
    return { status: 200, body: res };
  } catch (err) {
    if (err instanceof StoreError && err.code === "conflict") return { status: 409, body: { error: err.message } };
    throw err;
  }
}
