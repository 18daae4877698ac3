// "Compare anything with anything": which captures make up each side of a comparison the reader
// picked — a version of a workload in an env, either its head alone, the head with every pushed
// replicate, or a chosen set of its pushed captures — and the choices the pickers offer.
// The diff itself is witness's diffCaptures, the same call and defaults as the automatic diff.
import type { Store } from "../store/store.ts";
import type { CaptureRecord } from "../store/types.ts";

export interface SidePick {
  version: string;
  env: string;
  /** "all": head + every pushed replicate (the automatic diff's choice); "head": the head alone. */
  set: "all" | "head";
  /** An explicit set of this version's pushed captures (request ids), overriding `set`. */
  ids: string[];
}

export interface ComparePick {
  workload: string;
  before: SidePick;
  after: SidePick;
}

/** A pushed (version, env) of a workload: what a picker lists. */
export interface VersionChoice {
  version: string;
  env: string;
  head: string | null;
  captures: string[];
  newest: number;
}

const ID_LIST = /^[\w-]{1,64}(,[\w-]{1,64}){0,63}$/;

function side(u: URLSearchParams, p: "b" | "a"): SidePick | string {
  const version = u.get(`${p}_version`) ?? "";
  const env = u.get(`${p}_env`) ?? "";
  const set = u.get(`${p}_set`) ?? "all";
  const ids = u.get(`${p}_ids`) ?? "";
  const name = p === "b" ? "baseline" : "comparison";
  if (!version) return `choose the ${name}'s version`;
  if (set !== "all" && set !== "head") return `the ${name}'s set must be "all" (head and replicates) or "head"`;
  if (ids && !ID_LIST.test(ids)) return `the ${name}'s captures must be a comma-separated list of request ids`;
  return { version, env: env === "(none)" ? "" : env, set, ids: ids ? ids.split(",") : [] };
}

/** Reads the picker's query; a string is what is wrong with it, worded for the page. */
export function parsePick(u: URLSearchParams): ComparePick | string {
  const workload = u.get("workload") ?? "";
  if (!workload) return "choose a workload";
  const before = side(u, "b");
  if (typeof before === "string") return before;
  const after = side(u, "a");
  if (typeof after === "string") return after;
  return { workload, before, after };
}

export function pickQuery(p: ComparePick): string {
  const q = new URLSearchParams({ workload: p.workload });
  for (const [k, s] of [["b", p.before], ["a", p.after]] as const) {
    q.set(`${k}_version`, s.version);
    q.set(`${k}_env`, s.env === "" ? "(none)" : s.env);
    q.set(`${k}_set`, s.set);
    if (s.ids.length) q.set(`${k}_ids`, s.ids.join(","));
  }
  return q.toString();
}

/** The records of one side, head first (witness takes the first capture as the head). */
export async function sideRecords(store: Store, org: string, workload: string, s: SidePick): Promise<CaptureRecord[] | string> {
  const pushed = await store.listPushedOfVersion(org, workload, s.env, s.version);
  const where = `version ${s.version} of ${workload}${s.env ? ` (${s.env})` : ""}`;
  if (pushed.length === 0) return `${where} has no pushed capture`;
  const head = pushed.filter((r) => r.kind === "head").at(-1) ?? pushed[0]!;
  if (s.ids.length) {
    const chosen = s.ids.map((id) => pushed.find((r) => r.requestId === id));
    const missing = s.ids.filter((_, i) => !chosen[i]);
    if (missing.length) return `${missing.join(", ")} ${missing.length === 1 ? "is not a pushed capture" : "are not pushed captures"} of ${where}`;
    const rs = chosen as CaptureRecord[];
    const h = rs.find((r) => r.requestId === head.requestId) ?? rs[0]!;
    return [h, ...rs.filter((r) => r !== h)];
  }
  if (s.set === "head") return [head];
  return [head, ...pushed.filter((r) => r.requestId !== head.requestId)];
}

/** Every pushed (version, env) of a workload in the org, newest first: the pickers' options. */
export async function versionChoices(store: Store, org: string, workload: string): Promise<VersionChoice[]> {
  const recs = await store.queryCaptures(org, { workload, limit: 2000 });
  const by = new Map<string, VersionChoice>();
  for (const r of recs) {
    if (r.outcome !== "pushed") continue;
    const k = `${r.version}\u0000${r.env}`;
    let c = by.get(k);
    if (!c) by.set(k, (c = { version: r.version, env: r.env, head: null, captures: [], newest: r.createdAt }));
    c.captures.push(r.requestId);
    if (r.kind === "head" && c.head === null) c.head = r.requestId;
  }
  return [...by.values()].sort((a, b) => b.newest - a.newest);
}
