// Enrolment: tells the control plane "this instance id holds this public key", proved by the
// tenant's bootstrap token. Sent once per boot; the control plane makes it idempotent.
import { hostname } from "node:os";
import { ENROL_PATH, TENANT_HEADER, type EnrolRequest, type EnrolResponse } from "../protocol/enrol.ts";
import { RUNNER_VERSION } from "../version.ts";

export interface EnrolParams {
  enrolUrl: string;
  tenant: string;
  instanceId: string;
  bootstrapToken: string;
  publicKeyB64: string;
  ca?: string[];
}

export class EnrolError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** true when trying again later may succeed (network, 5xx, 403 while the org has not opted in). */
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** The enrol URL may be the full path or just the control plane's base address. */
export function enrolEndpoint(enrolUrl: string): string {
  const url = new URL(enrolUrl);
  if (url.pathname === "/" || url.pathname === "") url.pathname = ENROL_PATH;
  return url.toString();
}

export async function enrol(p: EnrolParams): Promise<EnrolResponse> {
  const body: EnrolRequest = {
    instance_id: p.instanceId,
    class: "profiler",
    public_key: p.publicKeyB64,
    version: RUNNER_VERSION,
    arch: process.arch,
  };
  let res: Response;
  try {
    res = await fetch(enrolEndpoint(p.enrolUrl), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${p.bootstrapToken}`,
        [TENANT_HEADER]: p.tenant,
        "user-agent": `runner-profiler/${RUNNER_VERSION} (${hostname()})`,
      },
      body: JSON.stringify(body),
      tls: p.ca ? { ca: p.ca } : undefined,
    } as RequestInit);
  } catch (err) {
    throw new EnrolError(`enrolment at RUNNER_ENROLL_URL failed: ${(err as Error).message}`, 0, true);
  }
  const text = await res.text();
  if (res.ok) return JSON.parse(text) as EnrolResponse;
  const detail = safeMessage(text);
  switch (res.status) {
    case 403:
      throw new EnrolError(`enrolment refused (403): the organization "${p.tenant}" has not enabled the Profiler (Settings → Profiler)`, 403, true);
    case 401:
      throw new EnrolError("enrolment refused (401): RUNNER_BOOTSTRAP_TOKEN is not a valid bootstrap token of this tenant", 401, false);
    case 409:
      throw new EnrolError(`enrolment refused (409): ${detail || "this instance id is enrolled with another key"}`, 409, false);
    default:
      throw new EnrolError(`enrolment failed (${res.status}): ${detail}`, res.status, res.status >= 500);
  }
}

function safeMessage(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: string; message?: string };
    return String(j.error ?? j.message ?? "").slice(0, 300);
  } catch {
    return text.slice(0, 300);
  }
}
