// The web app, mounted by app.ts with one `.use(webRoutes(deps))`: sign-in, Profiling (records,
// capture form, capture screen, downloads), Settings, and the compiled-in assets.
import { Elysia } from "elysia";
import { assetRoutes } from "./assets/routes.ts";
import { authRoutes } from "./auth-routes.ts";
import type { WebDeps } from "./context.ts";
import { profilingRoutes } from "./profiling-routes.ts";
import { readTokenRoutes } from "./read-token-routes.ts";
import { settingsRoutes } from "./settings-routes.ts";

export function webRoutes(deps: WebDeps) {
  return new Elysia().use(assetRoutes()).use(authRoutes(deps)).use(profilingRoutes(deps)).use(settingsRoutes(deps)).use(readTokenRoutes(deps));
}
