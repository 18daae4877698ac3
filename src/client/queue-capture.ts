// One HTTP attempt at queueing a capture; turns every answer into an outcome with a clear message.
import type { CaptureAccepted, CaptureRequestBody } from "../protocol/capture-request.ts";

export type Attempt =
  | { kind: "accepted"; body: CaptureAccepted }
  | { kind: "rate_limited"; retryAfterSeconds: number; message: string }
  | { kind: "refused"; status: number; message: string };

const EXPLAIN: Record<number, string> = {
  400: "the request was refused as invalid",
  401: "the capture token is missing, malformed, unknown or revoked",
  403: "the Profiler is not enabled for this organization (an owner or admin enables it in Settings)",
  404: "no capture endpoint at this URL; check --url (the base address of the control plane)",
  413: "the request body is too large",
};

export function capturesUrl(base: string): string {
  return `${base.replace(/\/+$/, "")}/api/profiling/captures`;
}

export async function attemptQueueCapture(base: string, token: string, body: CaptureRequestBody): Promise<Attempt> {
  let res: Response;
  try {
    res = await fetch(capturesUrl(base), {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch (err) {
    return { kind: "refused", status: 0, message: `could not reach ${base}: ${(err as Error).message}` };
  }
  const text = await res.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(text);
  } catch {
    // a proxy's HTML error page, say; reported by status below
  }
  const serverSays = typeof json?.error === "string" ? json.error : null;
  if (res.status === 202 && json && typeof json.request_id === "string") {
    return { kind: "accepted", body: json as unknown as CaptureAccepted };
  }
  if (res.status === 429) {
    const fromBody = Number(json?.retry_after_seconds);
    const fromHeader = Number(res.headers.get("retry-after"));
    const retryAfterSeconds = Number.isFinite(fromBody) && fromBody > 0 ? fromBody : Number.isFinite(fromHeader) && fromHeader > 0 ? fromHeader : 60;
    return {
      kind: "rate_limited",
      retryAfterSeconds,
      message: `429: the organization reached its hourly limit of capture requests; retry in ${retryAfterSeconds} s (pass --retry to wait)`,
    };
  }
  // The server's own words when it gave them (they already say what is wrong, and how to fix it);
  // ours only when it did not, or when "not found" would not say that --url is wrong.
  const why = res.status !== 404 && serverSays ? serverSays : EXPLAIN[res.status] ?? (res.status >= 500 ? "the control plane failed (a bug on its side)" : "unexpected answer");
  return { kind: "refused", status: res.status, message: `${res.status}: ${why}` };
}
