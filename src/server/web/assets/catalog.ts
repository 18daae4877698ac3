// The app's static files (stylesheet, script, icon), compiled into the executable, each with a
// content hash: pages link `/assets/NAME?v=HASH`, which browsers may cache forever (a new build
// changes the hash).
import { APP_CSS } from "./app-css.ts";
import { APP_JS } from "./app-js.ts";
import { APP_ICON } from "./app-icon.ts";

export interface Asset {
  body: string;
  type: string;
  hash: string;
}

export const ASSETS: Record<string, Asset> = Object.fromEntries(
  [
    ["app.css", APP_CSS, "text/css; charset=utf-8"],
    ["app.js", APP_JS, "text/javascript; charset=utf-8"],
    ["icon.svg", APP_ICON, "image/svg+xml"],
  ].map(([name, body, type]) => [name!, { body: body!, type: type!, hash: Bun.hash(body!).toString(36) }]),
);

/** The versioned URL of an asset. */
export const assetUrl = (name: "app.css" | "app.js" | "icon.svg"): string => `/assets/${name}?v=${ASSETS[name]!.hash}`;
