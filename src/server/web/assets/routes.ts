// Serves the compiled-in assets: immutable when asked for the current version, else revalidated
// by ETag (an old page asking for an old version still gets today's file, never a 404).
import { Elysia } from "elysia";
import { ASSETS } from "./catalog.ts";

export function assetRoutes() {
  return new Elysia().get("/assets/:name", ({ params, request }) => {
    const a = ASSETS[params.name];
    if (!a) return new Response("not found", { status: 404 });
    const etag = `"${a.hash}"`;
    const current = new URL(request.url).searchParams.get("v") === a.hash;
    const headers = { etag, "cache-control": current ? "public, max-age=31536000, immutable" : "no-cache", "x-content-type-options": "nosniff" };
    if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
    return new Response(a.body, { headers: { ...headers, "content-type": a.type } });
  });
}
