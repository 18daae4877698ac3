// Serves the compiled-in assets: immutable when asked for the current version, else revalidated
// by ETag (an old page asking for an old version still gets today's file, never a 404). Also
// /favicon.ico, which browsers ask for on their own where no page links an icon (a JSON download,
// a plain-text error): the same SVG icon, revalidated by ETag, rather than a 404 in the console.
import { Elysia } from "elysia";
import { ASSETS, type Asset } from "./catalog.ts";

function serve(a: Asset, request: Request, cacheControl: string): Response {
  const etag = `"${a.hash}"`;
  const headers = { etag, "cache-control": cacheControl, "x-content-type-options": "nosniff" };
  if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
  return new Response(a.body, { headers: { ...headers, "content-type": a.type } });
}

export function assetRoutes() {
  return new Elysia()
    .get("/assets/:name", ({ params, request }) => {
      const a = ASSETS[params.name];
      if (!a) return new Response("not found", { status: 404 });
      const current = new URL(request.url).searchParams.get("v") === a.hash;
      return serve(a, request, current ? "public, max-age=31536000, immutable" : "no-cache");
    })
    .get("/favicon.ico", ({ request }) => serve(ASSETS["icon.svg"]!, request, "no-cache"));
}
