// The app's only script: app/main.ts and its modules (typed and checked by tsc with the rest of
// the tree), bundled into one file when this module is built or loaded.
import { clientScript } from "./bundle-client.ts" with { type: "macro" };

export const APP_JS: string = clientScript("./app/main.ts");
