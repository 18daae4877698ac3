// Reads a request body up to a limit without buffering more than limit + one chunk.
export const MAX_CAPTURE_BODY_BYTES = 16 * 1024;

export type BodyResult = { ok: true; text: string } | { ok: false; status: 400 | 413; error: string };

export async function readBoundedBody(request: Request, limit: number): Promise<BodyResult> {
  const length = request.headers.get("content-length");
  if (length !== null) {
    // A declared length is enforced by the HTTP parser, so buffering it whole is bounded; only a
    // chunked body has to be counted as it streams in. (Touching request.body costs a stream.)
    if (Number(length) > limit) return tooLarge(limit);
    try {
      return decode(new Uint8Array(await request.arrayBuffer()));
    } catch {
      return unreadable(); // the client went away mid-body
    }
  }
  if (!request.body) return { ok: true, text: "" };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        return tooLarge(limit);
      }
      chunks.push(value);
    }
  } catch {
    return unreadable();
  }
  return decode(Buffer.concat(chunks));
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
function decode(bytes: Uint8Array): BodyResult {
  try {
    return { ok: true, text: utf8.decode(bytes) };
  } catch {
    return { ok: false, status: 400, error: "request body is not valid UTF-8" };
  }
}

function unreadable(): BodyResult {
  return { ok: false, status: 400, error: "request body could not be read" };
}

function tooLarge(limit: number): BodyResult {
  return { ok: false, status: 413, error: `request body exceeds ${limit} bytes` };
}
