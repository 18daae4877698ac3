// `runner admin --data DIR …`: works on the store directly (no server needed).
import { BOOTSTRAP_TOKEN_PREFIX, CAPTURE_TOKEN_PREFIX, generateToken, hashToken } from "../../protocol/token-format.ts";
import { textProblem } from "../../protocol/names.ts";
import { safe, terminalSafe } from "../../terminal-text.ts";
import { need, out, printJson, revokeCommand, tokenLine, tokenState, UsageError } from "./output.ts";
import { parseCommandLine, USAGE_EXIT } from "../../cli-args.ts";
import { READ_TOKEN_COMMANDS } from "./read-token-commands.ts";
import { RETENTION_COMMANDS } from "./retention-commands.ts";
import type { Handler } from "./handler.ts";
import { renderDiffTable, type DiffResult } from "../../witness/index.ts";
import { TOKEN_NAME, TOKEN_NAME_RULE } from "../tokens/token-name.ts";
import { captureJson, instrumentationSummary } from "../records/capture-json.ts";
import { chosenDatabaseUrl, openStore } from "../store/open.ts";
import { DATABASE_COMMANDS, databaseCommand } from "./database-command.ts";
import type { Store } from "../store/store.ts";
import { StoreError } from "../store/types.ts";
import { createMember } from "../users/create-user.ts";

const USAGE = `usage: runner admin (--data DIR | with RUNNER_DATABASE_URL=postgres://… set) <command>
  migrate                      bring the store's schema up to date (PostgreSQL: run before starting new replicas)
  import-sqlite FILE           with RUNNER_DATABASE_URL: copy a SQLite store (DIR/runner.db) into an empty PostgreSQL database
  org create ORG
  profiler enable ORG | profiler disable ORG
  token create ORG NAME        prints the capture token once, as the last line
  token revoke ORG NAME
  token list ORG [--json]
  read-token create ORG NAME [--workload W]…
                               prints a read token once, as the last line: it reads the status,
                               outcome and verdict of the org's captures (of workload W only, if given)
  read-token revoke ORG NAME
  read-token list ORG [--json]
  bootstrap-token create ORG   prints the bootstrap token once, as the last line
  user create ORG EMAIL --role owner|admin|member --password-stdin
                               a member who signs in to the app; the password is read from stdin
  captures list ORG [--json]
  captures show ID [--json]    the record, with what its diff was compared with
  retention set ORG [--head-days N|none] [--replicate-days N|none] [--keep-versions K]
                               how long profiles are kept (the server applies it hourly)
  retention show ORG [--json]  the policy and the storage used
  captures prune [ORG] [--dry-run] [--json]
                               apply the retention policy now (every org with one, or ORG)
  captures diff ID [--json] [--html FILE]
                               the diff of a head capture against the prior version
`;



/** The first line of stdin (a trailing newline is not part of the password). */
async function readPasswordFromStdin(): Promise<string> {
  const text = await Bun.stdin.text();
  return text.split(/\r?\n/)[0] ?? "";
}

const COMMANDS: Record<string, Handler> = {
  ...READ_TOKEN_COMMANDS,
  ...RETENTION_COMMANDS,
  "org create": async (store, args) => {
    const [org] = need(args, 1, "org create ORG");
    const problem = textProblem(org!);
    if (problem) throw new UsageError(`organization name ${problem}`);
    await store.createOrg(org!);
    out(safe`created organization ${org}`);
  },
  "profiler enable": async (store, args) => {
    const [org] = need(args, 1, "profiler enable ORG");
    await store.setProfilerEnabled(org!, true);
    out(safe`Profiler enabled for ${org}`);
  },
  "profiler disable": async (store, args) => {
    const [org] = need(args, 1, "profiler disable ORG");
    await store.setProfilerEnabled(org!, false);
    out(safe`Profiler disabled for ${org}`);
  },
  "token create": async (store, args) => {
    const [org, name] = need(args, 2, "token create ORG NAME");
    if (!TOKEN_NAME.test(name!)) throw new UsageError(`token name ${JSON.stringify(name)} is not allowed: a token name is ${TOKEN_NAME_RULE} (it is the requester of every capture the token queues)`);
    const token = generateToken(CAPTURE_TOKEN_PREFIX);
    await store.addCaptureToken(org!, name!, hashToken(token));
    out(safe`capture token "${name}" created for ${org}; it is shown once, store it now:`);
    out(token);
  },
  "token revoke": revokeCommand("token", "capture token", (store, org, name) => store.revokeCaptureToken(org, name)),
  "token list": async (store, args, json) => {
    const [org] = need(args, 1, "token list ORG");
    const tokens = await store.listCaptureTokens(org!);
    if (json) return printJson(tokens.map((t) => ({ name: t.name, ...tokenState(t) })));
    if (tokens.length === 0) return out(safe`no capture tokens for ${org}`);
    for (const t of tokens) out(tokenLine(t.name, tokenState(t)));
  },
  "bootstrap-token create": async (store, args) => {
    const [org] = need(args, 1, "bootstrap-token create ORG");
    const token = generateToken(BOOTSTRAP_TOKEN_PREFIX);
    await store.addBootstrapToken(org!, hashToken(token));
    out(safe`bootstrap token created for ${org}; it is shown once, store it now:`);
    out(token);
  },
  "user create": async (store, args, _json, opts) => {
    const [org, email] = need(args, 2, "user create ORG EMAIL --role owner|admin|member --password-stdin");
    if (!opts.role) throw new UsageError("--role owner|admin|member is required");
    // Never a password in argv (visible in ps and shell history): stdin only.
    if (!opts.passwordStdin) throw new UsageError("--password-stdin is required: pipe the password on stdin");
    const user = await createMember(store, org!, email!, opts.role, await readPasswordFromStdin());
    out(safe`created ${user.role} ${user.email} in ${user.orgName}`);
  },
  "captures list": async (store, args, json) => {
    const [org] = need(args, 1, "captures list ORG");
    const records = await store.listCaptures(org!);
    if (json) return printJson(records.map(captureJson));
    if (records.length === 0) return out(safe`no capture requests for ${org}`);
    for (const r of records) {
      out(safe`${r.requestId}\t${r.workload}@${r.version}${r.env ? ` (${r.env})` : ""}\t${r.kind}\t${r.status}${r.outcome ? `/${r.outcome}` : ""}\tby ${r.requester}`);
    }
  },
  "captures show": async (store, args, json) => {
    const [id] = need(args, 1, "captures show ID");
    const record = await store.getCapture(id!);
    if (!record) throw new StoreError(`capture request "${id}" does not exist`, "not_found");
    const diff = await store.getDiff(id!);
    const diffInfo = diff && { compared_with: diff.comparedWith?.requestId ?? null, compared_version: diff.comparedWith?.version ?? null, verdict: diff.verdict, note: diff.note };
    const j = captureJson(record);
    if (json) return printJson({ ...j, diff: diffInfo });
    for (const [k, v] of Object.entries(j)) if (k !== "instrumentation") out(safe`${k.padEnd(14)} ${v ?? "-"}`);
    out(safe`${"instrumentation".padEnd(14)} ${instrumentationSummary(record.instrumentation)}`);
    for (const n of record.instrumentation?.notes ?? []) out(safe`${"collector note".padEnd(14)} ${n}`);
    if (diffInfo) out(safe`${"diff".padEnd(14)} ${diffInfo.verdict ?? "none"}: ${diffInfo.note}`);
  },
  "captures diff": async (store, args, json, opts) => {
    const [id] = need(args, 1, "captures diff ID");
    const diff = await store.getDiff(id!);
    if (!diff) throw new StoreError(`capture "${id}" has no diff (not pushed yet, or not a head capture)`, "not_found");
    const day = (t: number) => new Date(t).toISOString().slice(0, 10);
    const [selfPruned, basePruned] = await Promise.all([store.prunedAt(id!), diff.comparedWith ? store.prunedAt(diff.comparedWith.requestId) : null]);
    if (opts.html) {
      if (!diff.html && selfPruned !== null) throw new StoreError(`capture "${id}" was pruned on ${day(selfPruned)} by the retention policy: its flame graph is gone (the verdict stays: runner admin captures diff ${id})`, "not_found");
      if (!diff.html) throw new StoreError(`capture "${id}" has no flame graph: ${diff.note}`, "not_found");
      await Bun.write(opts.html, diff.html);
    }
    const baselinePruned = basePruned === null ? null : `baseline pruned on ${day(basePruned)} by the retention policy: its profiles are gone; the diff below was computed before`;
    if (json) return printJson({ request_id: id, compared_with: diff.comparedWith, note: diff.note, baseline_pruned_at: basePruned === null ? null : new Date(basePruned).toISOString(), diff: diff.json ? JSON.parse(diff.json) : null });
    if (baselinePruned) out(baselinePruned);
    // The same table `runner witness diff` prints (one renderer for both), after what was compared.
    if (diff.json) for (const line of `${diff.note}\n${renderDiffTable(JSON.parse(diff.json) as DiffResult)}`.trimEnd().split("\n")) out(terminalSafe(line));
    else out(safe`no diff: ${diff.note}`);
    if (opts.html) out(safe`flame graph written to ${opts.html}`);
  },
};

export async function adminCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandLine({
      args: argv,
      options: {
        data: { type: "string" },
        "database-url": { type: "string" },
        json: { type: "boolean", default: false },
        html: { type: "string" },
        role: { type: "string" },
        "password-stdin": { type: "boolean", default: false },
        workload: { type: "string", multiple: true },
        "head-days": { type: "string" },
        "replicate-days": { type: "string" },
        "keep-versions": { type: "string" },
        "dry-run": { type: "boolean", default: false },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    process.stderr.write(`runner admin: ${(err as Error).message}\n${USAGE}`);
    return USAGE_EXIT;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [group, action, ...args] = positionals;
  const database = chosenDatabaseUrl(values["database-url"], values.data);
  if (database.warning) process.stderr.write(`runner admin: warning: ${database.warning}\n`);
  if ((DATABASE_COMMANDS as readonly string[]).includes(group ?? "")) {
    return databaseCommand(group!, positionals.slice(1), { data: values.data, databaseUrl: database.url }).then(
      () => 0,
      (err: Error) => (process.stderr.write(`runner admin: ${terminalSafe(err.message)}\n`), err instanceof UsageError ? USAGE_EXIT : 1),
    );
  }
  const handler = COMMANDS[`${group} ${action}`];
  if (!handler) {
    process.stderr.write(`runner admin: unknown command "${positionals.join(" ")}"\n${USAGE}`);
    return USAGE_EXIT;
  }
  let store: Store | undefined;
  try {
    // Only `org create` starts a new store; every other command needs an existing one.
    const mustExist = `${group} ${action}` !== "org create";
    store = openStore({ data: values.data, databaseUrl: database.url, mustExist });
    await handler(store, args, values.json!, { html: values.html, role: values.role, passwordStdin: values["password-stdin"], workload: values.workload,
      headDays: values["head-days"], replicateDays: values["replicate-days"], keepVersions: values["keep-versions"], dryRun: values["dry-run"] });
    return 0;
  } catch (err) {
    process.stderr.write(`runner admin: ${terminalSafe((err as Error).message)}\n`);
    return err instanceof UsageError ? USAGE_EXIT : 1;
  } finally {
    await store?.close();
  }
}
