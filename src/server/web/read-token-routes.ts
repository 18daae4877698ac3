// Settings → Read Tokens: create (the value shown once) and revoke; owner or admin only.
import { Elysia } from "elysia";
import { generateToken, hashToken, READ_TOKEN_PREFIX } from "../../protocol/token-format.ts";
import { StoreError } from "../store/types.ts";
import { checkTokenName, checkWorkloadScope } from "../tokens/read-token-rules.ts";
import { guarded, type WebDeps } from "./context.ts";
import { field } from "./form.ts";
import { flash } from "./layout.ts";
import { redirect } from "./respond.ts";
import { manager, render } from "./settings-routes.ts";

export function readTokenRoutes(deps: WebDeps) {
  return new Elysia()
    .post(
      "/settings/read-tokens",
      guarded(deps, manager, async (r) => {
        const name = field(r.form, "name");
        const workloads = field(r.form, "workloads").split(",").map((w) => w.trim()).filter((w) => w !== "");
        const bad = checkTokenName(name) ?? checkWorkloadScope(workloads);
        if (bad) return render(deps, r.session, { message: flash("error", `${bad[0]!.toUpperCase()}${bad.slice(1)}.`) }, 400);
        const value = generateToken(READ_TOKEN_PREFIX);
        try {
          await deps.store.addReadToken(r.session.user.orgName, name, hashToken(value), workloads.length ? [...new Set(workloads)] : null, deps.now());
        } catch (err) {
          if (err instanceof StoreError && err.code === "conflict") {
            return render(deps, r.session, { message: flash("error", `An active read token named "${name}" already exists; revoke it or pick another name.`) }, 409);
          }
          throw err;
        }
        deps.logger.info({ org: r.session.user.orgName, user_id: r.session.user.id, token_name: name }, "read token created in Settings");
        // Rendered directly (no redirect): the value exists only in this response.
        return render(deps, r.session, { createdRead: { name, value } }, 201);
      }),
      { parse: "none" },
    )
    .post(
      "/settings/read-tokens/revoke",
      guarded(deps, manager, async (r) => {
        const name = field(r.form, "name");
        try {
          await deps.store.revokeReadToken(r.session.user.orgName, name, deps.now());
        } catch (err) {
          if (err instanceof StoreError && err.code === "not_found") return render(deps, r.session, { message: flash("error", `No active read token named "${name}".`) }, 404);
          throw err;
        }
        deps.logger.info({ org: r.session.user.orgName, user_id: r.session.user.id, token_name: name }, "read token revoked in Settings");
        return redirect(`/settings?done=${encodeURIComponent(`Read token "${name}" revoked.`)}`);
      }),
      { parse: "none" },
    );
}
