// The app's two static files, served from the executable with a content hash as ETag.
import { Elysia } from "elysia";
import { APP_CSS } from "./app-css.ts";
import { APP_JS } from "./app-js.ts";

const ASSETS: Record<string, { body: string; type: string; etag: string }> = Object.fromEntries(
  [
    ["app.css", APP_CSS, "text/css; charset=utf-8"],
    ["app.js", APP_JS, "text/javascript; charset=utf-8"],
  ].map(([name, body, type]) => [name!, { body: body!, type: type!, etag: `"${Bun.hash(body!).toString(36)}"` }]),
);

export function assetRoutes() {
  return new Elysia().get("/assets/:name", ({ params, request }) => {
    const a = ASSETS[params.name];
    if (!a) return new Response("not found", { status: 404 });
    if (request.headers.get("if-none-match") === a.etag) return new Response(null, { status: 304, headers: { etag: a.etag } });
    return new Response(a.body, { headers: { "content-type": a.type, etag: a.etag, "cache-control": "no-cache", "x-content-type-options": "nosniff" } });
  });
}
