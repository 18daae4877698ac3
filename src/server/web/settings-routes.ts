// Settings: visible to every member; each action re-checks the role (owner/admin) on the server.
import { Elysia } from "elysia";
import { CAPTURE_TOKEN_PREFIX, generateToken, hashToken, type TokenPrefix } from "../../protocol/token-format.ts";
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
  const [o, instances, connected, tokens, readTokens, storage, retention] = await Promise.all([
    deps.store.getOrg(org), deps.store.listInstances(org), deps.presence(org), tokenRows(deps, org), deps.store.listReadTokens(org), deps.store.storageUsage(org), deps.store.getRetentionPolicy(org),
  ]);
  return page(settingsPage({ session: s, profilerEnabled: o?.profilerEnabled ?? false, instances, connected, tokens, readTokens, storage, retention, ...extra }), status);
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

/** A kind of token a Settings form makes: how the page names it ("token", "read token") and how the log does. */
export interface TokenKind {
  page: string;
  log: string;
}

type Form = { session: SignedIn; form: URLSearchParams };
export const capitalized = (s: string) => `${s[0]!.toUpperCase()}${s.slice(1)}`;

/** Stores a new token (`add` is given its hash): its value shown in this answer only (201), or a 409 when an active one has that name. */
export async function createToken(deps: WebDeps, r: Form, kind: TokenKind, name: string, prefix: TokenPrefix, add: (hash: string) => Promise<void>, shown: (created: { name: string; value: string }) => Partial<SettingsView>): Promise<Response> {
  const value = generateToken(prefix);
  try {
    await add(hashToken(value));
  } catch (err) {
    if (err instanceof StoreError && err.code === "conflict") {
      return render(deps, r.session, { message: flash("error", `An active ${kind.page} named "${name}" already exists; revoke it or pick another name.`) }, 409);
    }
    throw err;
  }
  deps.logger.info({ org: r.session.user.orgName, user_id: r.session.user.id, token_name: name }, `${kind.log} created in Settings`);
  // Rendered directly (no redirect): the value exists only in this response.
  return render(deps, r.session, shown({ name, value }), 201);
}

/** Revokes the token the form names: back to Settings saying so, or a 404 when no active one has that name. */
export async function revokeToken(deps: WebDeps, r: Form, kind: TokenKind, revoke: (name: string) => Promise<void>): Promise<Response> {
  const name = field(r.form, "name");
  try {
    await revoke(name);
  } catch (err) {
    if (err instanceof StoreError && err.code === "not_found") return render(deps, r.session, { message: flash("error", `No active ${kind.page} named "${name}".`) }, 404);
    throw err;
  }
  deps.logger.info({ org: r.session.user.orgName, user_id: r.session.user.id, token_name: name }, `${kind.log} revoked in Settings`);
  return redirect(`/settings?done=${encodeURIComponent(`${capitalized(kind.page)} "${name}" revoked.`)}`);
}

const CAPTURE_TOKEN: TokenKind = { page: "token", log: "capture token" };

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
        const org = r.session.user.orgName;
        return createToken(deps, r, CAPTURE_TOKEN, name, CAPTURE_TOKEN_PREFIX, (hash) => deps.store.addCaptureToken(org, name, hash, deps.now()), (created) => ({ created }));
      }),
      { parse: "none" },
    )
    .post(
      "/settings/tokens/revoke",
      guarded(deps, manager, (r) => revokeToken(deps, r, CAPTURE_TOKEN, (name) => deps.store.revokeCaptureToken(r.session.user.orgName, name, deps.now()))),
      { parse: "none" },
    );
}
