import { AgentError } from "../errors.ts";

// Plain HTTPS JSON calls for connectors whose vendors have no SDK worth its weight. Network
// failures become `upstream` errors naming the host, never the headers (which carry keys).

export interface HttpResult {
  status: number;
  body: any;
  text: string;
  /** Response headers (some platforms report granted/needed permissions in them). */
  headers: Headers;
}

export interface HttpOptions {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  json?: unknown;
  timeoutMs?: number;
  tls?: { ca?: string };
}

export async function httpJson(url: string, opts: HttpOptions = {}): Promise<HttpResult> {
  const headers: Record<string, string> = { accept: "application/json", ...opts.headers };
  if (opts.json !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(url, {
      method: opts.method ?? "GET",
      headers,
      body: opts.json === undefined ? undefined : JSON.stringify(opts.json),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
      ...(opts.tls ? { tls: opts.tls } : {}),
    } as RequestInit);
  } catch (e) {
    const host = safeHost(url);
    throw new AgentError("upstream", `cannot reach ${host}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const text = await res.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text, headers: res.headers };
}

export function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "the configured address";
  }
}

/** Query parameters for `urlOf`: undefined values are dropped, an array repeats the key. */
export type Query = Record<string, string | number | boolean | undefined | (string | number)[]>;

/** Joins a base URL and a path plus query parameters, dropping undefined values; an array repeats the key. */
export function urlOf(base: string, path: string, query: Query = {}): string {
  const u = new URL(base.replace(/\/+$/, "") + path);
  for (const [k, v] of Object.entries(query)) {
    if (Array.isArray(v)) for (const one of v) u.searchParams.append(k, String(one));
    else if (v !== undefined) u.searchParams.set(k, String(v));
  }
  return u.toString();
}
