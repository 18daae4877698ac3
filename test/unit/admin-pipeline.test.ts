// `runner admin` for the pipeline owner, as processes on a real SQLite file: read tokens (shown
// once, hashed at rest, scoped) and `captures diff ID`, which prints the table `runner witness
// diff` prints for the same captures.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashToken, isWellFormedToken, READ_TOKEN_PREFIX } from "../../src/protocol/token-format.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import { toStream } from "../../src/witness/stream.ts";
import { makeProgram, rng, version } from "../fixtures/profiles/synthetic.ts";
import { runAdmin } from "../helpers/runner-admin.ts";
import { runnerCommand } from "../helpers/runner-bin.ts";
import { pushCaptureAt } from "./web-harness.ts";

let dir: string;
const files: Record<"before" | "after", string[]> = { before: [], after: [] };
let head = "";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "runner-admin-pipeline-"));
  const store = new SqliteStore(join(dir, "runner.db"));
  await store.createOrg("acme");
  const p = makeProgram({ seed: 3, stacks: 120, leaves: 40, cv: 0.01, targetShare: 0.02 });
  const r = rng(9);
  const full = { probes_requested: 1, probes_attached: 1, missing: [] };
  let at = Date.UTC(2026, 0, 1);
  for (const [side, v, change] of [["before", "1.0.0", undefined], ["after", "1.1.0", { target: 1.5 }]] as const) {
    for (const [i, c] of version(p, r, 3, { samples: 100_000, change }).entries()) {
      const id = await pushCaptureAt(store, "acme", { workload: "shop", version: v, kind: i === 0 ? "head" : "replicate" }, c, full, (at += 60_000));
      if (side === "after" && i === 0) head = id;
      const f = join(dir, `${v}-${i}.jsonl`);
      writeFileSync(f, toStream(c));
      files[side].push(f);
    }
  }
  await store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("runner admin captures diff ID", () => {
  test("what it was compared with, then the same table runner witness diff prints", () => {
    const a = runAdmin(dir, ["captures", "diff", head]);
    expect(a.code).toBe(0);
    const [note, ...table] = a.out.split("\n");
    expect(note).toStartWith("compared with the head of version 1.0.0");
    const w = Bun.spawnSync([...runnerCommand(), "witness", "diff", "--before", files.before.join(","), "--after", files.after.join(",")], { stdout: "pipe", stderr: "pipe" });
    expect(w.exitCode).toBe(0);
    expect(table.join("\n")).toBe(w.stdout.toString());
    expect(a.out).toMatch(/^target\s+cpu\/self\s+\+\d/m);
  }, 60_000);
});

describe("runner admin read-token", () => {
  test("create prints it once as the last line, hashed at rest, with its scope; list and revoke; bad names are usage errors", async () => {
    const c = runAdmin(dir, ["read-token", "create", "acme", "deploy-gate", "--workload", "shop", "--workload", "cart"]);
    expect(c.code).toBe(0);
    const token = c.out.trimEnd().split("\n").at(-1)!;
    expect(isWellFormedToken(token, READ_TOKEN_PREFIX)).toBe(true);
    expect(c.out).toContain("(workloads shop, cart)");
    const store = new SqliteStore(join(dir, "runner.db"));
    expect(await store.findReadToken(hashToken(token))).toMatchObject({ tokenName: "deploy-gate", workloads: ["shop", "cart"] });
    expect(JSON.stringify(store.db.query("SELECT * FROM read_tokens").all())).not.toContain(token);
    await store.close();
    const list = runAdmin(dir, ["read-token", "list", "acme", "--json"]);
    expect(JSON.parse(list.out)).toEqual([expect.objectContaining({ name: "deploy-gate", workloads: ["shop", "cart"], active: true })]);
    expect(runAdmin(dir, ["read-token", "revoke", "acme", "deploy-gate"]).code).toBe(0);
    expect(runAdmin(dir, ["read-token", "revoke", "acme", "deploy-gate"]).code).toBe(1);
    const bad = runAdmin(dir, ["read-token", "create", "acme", "has space"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("a token name is 1 to 64 letters");
  }, 60_000);
});

describe("runner admin retention and captures prune", () => {
  test("set and show the policy; a dry run says what would go and removes nothing; then prune", () => {
    expect(runAdmin(dir, ["captures", "prune"]).out).toContain("no organization has a retention policy");
    const bad = runAdmin(dir, ["retention", "set", "acme", "--head-days", "0"]);
    expect({ code: bad.code, err: bad.err.split("\n")[0] }).toEqual({ code: 2, err: 'runner admin: --head-days must be a whole number of days (1 or more) or none, got "0"' });
    const set = runAdmin(dir, ["retention", "set", "acme", "--head-days", "30", "--replicate-days", "30", "--keep-versions", "1"]);
    expect(set.code).toBe(0);
    expect(set.out).toContain("heads kept 30 days, replicates kept 30 days; the latest 1 version of each workload always kept");
    const dry = runAdmin(dir, ["captures", "prune", "--dry-run"]);
    expect(dry.out).toMatch(/^acme: would prune 3 profiles \([\d.]+ MiB\), kept 3$/m);
    expect(JSON.parse(runAdmin(dir, ["retention", "show", "acme", "--json"]).out).storage).toMatchObject({ profiles: 6, pruned: 0 });
    const done = runAdmin(dir, ["captures", "prune", "acme", "--json"]);
    expect(JSON.parse(done.out)).toEqual([expect.objectContaining({ org: "acme", dry_run: false, kept: 3, pruned: 3 })]);
    expect(runAdmin(dir, ["retention", "show", "acme"]).out).toContain("storage: 3 profiles");
  }, 60_000);
});
