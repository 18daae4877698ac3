// `runner admin read-token create|revoke|list`: the tokens a pipeline reads its verdicts with.
import { generateToken, hashToken, READ_TOKEN_PREFIX } from "../../protocol/token-format.ts";
import type { Handler } from "./handler.ts";
import { safe } from "../../terminal-text.ts";
import { need, out, printJson, revokeCommand, tokenLine, tokenState, UsageError } from "./output.ts";
import { checkTokenName, checkWorkloadScope } from "../tokens/read-token-rules.ts";

export const READ_TOKEN_COMMANDS: Record<string, Handler> = {
  "read-token create": async (store, args, _json, opts) => {
    const [org, name] = need(args, 2, "read-token create ORG NAME [--workload W]…");
    const bad = checkTokenName(name!) ?? checkWorkloadScope(opts.workload ?? []);
    if (bad) throw new UsageError(bad);
    const workloads = opts.workload?.length ? [...new Set(opts.workload)] : null;
    const token = generateToken(READ_TOKEN_PREFIX);
    await store.addReadToken(org!, name!, hashToken(token), workloads);
    const scope = workloads ? `workload${workloads.length > 1 ? "s" : ""} ${workloads.join(", ")}` : "every workload";
    out(safe`read token "${name}" created for ${org} (${scope}); it reads capture status, outcome and verdict only. It is shown once, store it now:`);
    out(token);
  },
  "read-token revoke": revokeCommand("read-token", "read token", (store, org, name) => store.revokeReadToken(org, name)),
  "read-token list": async (store, args, json) => {
    const [org] = need(args, 1, "read-token list ORG");
    const tokens = await store.listReadTokens(org!);
    if (json) return printJson(tokens.map((t) => ({ name: t.name, workloads: t.workloads, ...tokenState(t) })));
    if (tokens.length === 0) return out(safe`no read tokens for ${org}`);
    for (const t of tokens) out(tokenLine(t.name, tokenState(t), t.workloads ? t.workloads.join(",") : "every workload"));
  },
};
