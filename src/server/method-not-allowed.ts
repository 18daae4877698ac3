// 405 for a known path asked with a method it does not serve (PATCH on the capture endpoint used
// to answer 404, as if the endpoint did not exist). The Allow header lists what the path serves.
//
// Methods Bun's HTTP parser does not know (`FOO`) never reach the app: Bun closes the connection
// before any handler runs (oven-sh/bun#6556); that part is out of our hands.

const HTTP_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

function patternOf(path: string): RegExp {
  const body = path
    .split("/")
    .map((part) => (part === "*" ? ".*" : part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${body}/?$`);
}

/** The methods served at `path` by `routes`, sorted; empty when no route matches the path. */
export function allowedMethods(routes: ReadonlyArray<{ method: string; path: string }>, path: string): string[] {
  const allowed = new Set<string>();
  for (const r of routes) {
    const method = r.method.toUpperCase();
    if (!HTTP_METHODS.has(method) || !patternOf(r.path).test(path)) continue;
    allowed.add(method);
    if (method === "GET") allowed.add("HEAD");
  }
  return [...allowed].sort();
}
