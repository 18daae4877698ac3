// Settings: visible to every member; each action re-checks the role (owner/admin) on the server.
import { Elysia } from "elysia";
import { CAPTURE_TOKEN_PREFIX, generateToken, hashToken } from "../../protocol/token-format.ts";
import { StoreError } from "../store/types.ts";
import { TOKEN_NAME, TOKEN_NAME_RULE } from "../tokens/token-name.ts";
import { canManageSettings } from "../users/roles.ts";
import type { SignedIn } from "../users/session.ts";
import { formSession, guarded, pageSession, type WebDeps } from "./context.ts";
import { field } from "./form.ts";
import { flash } from "./layout.ts";
import { settingsPage, type SettingsView, type TokenRow } from "./pages/settings.ts";
import { page, plain, redirect } from "./respond.ts";


async function tokenRows(deps: WebDeps, org: string): Promise<TokenRow[]> {
  const tokens = await deps.store.listCaptureTokens(org);
  return Promise.all(
    tokens.map(async (t) => ({ ...t, lastUsedAt: await deps.store.lastRequestBy(org, t.name, t.createdAt, t.revokedAt) })),
  );
}

export async function render(deps: WebDeps, s: SignedIn, extra: Partial<SettingsView> = {}, status = 200): Promise<Response> {
  const org = s.user.orgName;
  const [o, instances, connected, tokens, readTokens] = await Promise.all([deps.store.getOrg(org), deps.store.listInstances(org), deps.presence(org), tokenRows(deps, org), deps.store.listReadTokens(org)]);
  return page(settingsPage({ session: s, profilerEnabled: o?.profilerEnabled ?? false, instances, connected, tokens, readTokens, ...extra }), status);
}

/** The form's member, when an owner or admin; a 403 otherwise. */
export async function manager(deps: WebDeps, request: Request) {
  const r = await formSession(deps, request);
  if (!(r instanceof Response) && !canManageSettings(r.session.user.role)) {
    deps.logger.info({ org: r.session.user.orgName, user_id: r.session.user.id }, "settings action refused: member role");
    return plain(403, "only an owner or admin of the organization can change Settings");
  }
  return r;
}

export function settingsRoutes(deps: WebDeps) {
  return new Elysia()
    .get("/settings", guarded(deps, pageSession, async (s, request) => {
      const done = new URL(request.url).searchParams.get("done");
      return render(deps, s, { message: done ? flash("ok", done) : undefined });
    }))
    .post(
      "/settings/profiler",
      guarded(deps, manager, async (r) => {
        const enabled = field(r.form, "enabled") === "1";
        await deps.store.setProfilerEnabled(r.session.user.orgName, enabled);
        deps.logger.info({ org: r.session.user.orgName, user_id: r.session.user.id, enabled }, "Profiler opt-in changed in Settings");
        return redirect(`/settings?done=${encodeURIComponent(enabled ? "The Profiler is enabled." : "The Profiler is disabled.")}`);
      }),
      { parse: "none" },
    )
    .post(
      "/settings/tokens",
      guarded(deps, manager, async (r) => {
        const name = field(r.form, "name");
        if (!TOKEN_NAME.test(name)) {
          return render(deps, r.session, { message: flash("error", `A token name is ${TOKEN_NAME_RULE}.`) }, 400);
        }
        const value = generateToken(CAPTURE_TOKEN_PREFIX);
        try {
          await deps.store.addCaptureToken(r.session.user.orgName, name, hashToken(value), deps.now());
        } catch (err) {
          if (err instanceof StoreError && err.code === "conflict") {
            return render(deps, r.session, { message: flash("error", `An active token named "${name}" already exists; revoke it or pick another name.`) }, 409);
          }
          throw err;
        }
        deps.logger.info({ org: r.session.user.orgName, user_id: r.session.user.id, token_name: name }, "capture token created in Settings");
        // Rendered directly (no redirect): the value exists only in this response.
        return render(deps, r.session, { created: { name, value } }, 201);
      }),
      { parse: "none" },
    )
    .post(
      "/settings/tokens/revoke",
      guarded(deps, manager, async (r) => {
        const name = field(r.form, "name");
        try {
          await deps.store.revokeCaptureToken(r.session.user.orgName, name, deps.now());
        } catch (err) {
          if (err instanceof StoreError && err.code === "not_found") {
            return render(deps, r.session, { message: flash("error", `No active token named "${name}".`) }, 404);
          }
          throw err;
        }
        deps.logger.info({ org: r.session.user.orgName, user_id: r.session.user.id, token_name: name }, "capture token revoked in Settings");
        return redirect(`/settings?done=${encodeURIComponent(`Token "${name}" revoked.`)}`);
      }),
      { parse: "none" },
    );
}
