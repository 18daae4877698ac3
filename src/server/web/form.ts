// Reads an application/x-www-form-urlencoded body with the same size bound as the capture API.
import { MAX_CAPTURE_BODY_BYTES, readBoundedBody } from "../captures/read-body.ts";

export type FormResult = { ok: true; form: URLSearchParams } | { ok: false; status: number; error: string };

export async function readForm(request: Request): Promise<FormResult> {
  const type = request.headers.get("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded")) return { ok: false, status: 415, error: "expected a form submission" };
  const body = await readBoundedBody(request, MAX_CAPTURE_BODY_BYTES);
  if (!body.ok) return body;
  return { ok: true, form: new URLSearchParams(body.text) };
}

/** A field's value, trimmed; "" when absent. */
export const field = (form: URLSearchParams, name: string): string => (form.get(name) ?? "").trim();
