// Settings → Read Tokens: create (the value shown once) and revoke; owner or admin only.
import { Elysia } from "elysia";
import { READ_TOKEN_PREFIX } from "../../protocol/token-format.ts";
import { checkTokenName, checkWorkloadScope } from "../tokens/read-token-rules.ts";
import { guarded, type WebDeps } from "./context.ts";
import { field } from "./form.ts";
import { flash } from "./layout.ts";
import { capitalized, createToken, manager, render, revokeToken, type TokenKind } from "./settings-routes.ts";

const READ_TOKEN: TokenKind = { page: "read token", log: "read token" };

export function readTokenRoutes(deps: WebDeps) {
  return new Elysia()
    .post(
      "/settings/read-tokens",
      guarded(deps, manager, async (r) => {
        const name = field(r.form, "name");
        const workloads = field(r.form, "workloads").split(",").map((w) => w.trim()).filter((w) => w !== "");
        const bad = checkTokenName(name) ?? checkWorkloadScope(workloads);
        if (bad) return render(deps, r.session, { message: flash("error", `${capitalized(bad)}.`) }, 400);
        const scope = workloads.length ? [...new Set(workloads)] : null;
        const org = r.session.user.orgName;
        return createToken(deps, r, READ_TOKEN, name, READ_TOKEN_PREFIX, (hash) => deps.store.addReadToken(org, name, hash, scope, deps.now()), (createdRead) => ({ createdRead }));
      }),
      { parse: "none" },
    )
    .post(
      "/settings/read-tokens/revoke",
      guarded(deps, manager, (r) => revokeToken(deps, r, READ_TOKEN, (name) => deps.store.revokeReadToken(r.session.user.orgName, name, deps.now()))),
      { parse: "none" },
    );
}
