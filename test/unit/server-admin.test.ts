// `runner admin` as a user runs it: a real process on a real SQLite file.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BOOTSTRAP_TOKEN_PREFIX, CAPTURE_TOKEN_PREFIX, hashToken, isWellFormedToken } from "../../src/protocol/token-format.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import { runnerCommand } from "../helpers/runner-bin.ts";
import { runAdmin } from "../helpers/runner-admin.ts";

// Each test starts several `runner` processes; from source on a busy machine that takes seconds.
const PROCESS_TIMEOUT = 60_000;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "runner-admin-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const admin = (...args: string[]) => runAdmin(dir, args);
const lastLine = (s: string) => s.trimEnd().split("\n").at(-1)!;

describe("runner admin", () => {
  test("a command that reads a store refuses a missing one, naming the path, and creates nothing", () => {
    const typo = join(dir, "typo");
    for (const args of [["captures", "list", "acme"], ["token", "create", "acme", "ci"], ["profiler", "enable", "acme"], ["migrate"]]) {
      const r = runAdmin(typo, args);
      expect(r.code).toBe(1);
      expect(r.err).toContain(`no store at ${join(typo, "runner.db")}`);
      expect(existsSync(typo)).toBe(false);
    }
    // `org create` is how a new store starts.
    expect(runAdmin(typo, ["org", "create", "acme"]).code).toBe(0);
    expect(runAdmin(typo, ["captures", "list", "acme"])).toMatchObject({ code: 0, out: "no capture requests for acme\n" });
  }, PROCESS_TIMEOUT);

  test("org create, then a duplicate is refused with a message", () => {
    expect(admin("org", "create", "acme")).toMatchObject({ code: 0 });
    const dup = admin("org", "create", "acme");
    expect(dup.code).toBe(1);
    expect(dup.err).toContain('"acme" already exists');
  }, PROCESS_TIMEOUT);

  test("profiler enable/disable, and an unknown org", async () => {
    admin("org", "create", "acme");
    expect(admin("profiler", "enable", "acme").code).toBe(0);
    let store = new SqliteStore(join(dir, "runner.db"));
    expect((await store.getOrg("acme"))?.profilerEnabled).toBe(true);
    await store.close();
    expect(admin("profiler", "disable", "acme").code).toBe(0);
    store = new SqliteStore(join(dir, "runner.db"));
    expect((await store.getOrg("acme"))?.profilerEnabled).toBe(false);
    await store.close();
    const r = admin("profiler", "enable", "nope");
    expect(r.code).toBe(1);
    expect(r.err).toContain('"nope" does not exist');
  }, PROCESS_TIMEOUT);

  test("token create prints the token once as the last line; only its hash is on disk", async () => {
    admin("org", "create", "acme");
    const r = admin("token", "create", "acme", "ci");
    expect(r.code).toBe(0);
    const token = lastLine(r.out);
    expect(isWellFormedToken(token, CAPTURE_TOKEN_PREFIX)).toBe(true);
    const store = new SqliteStore(join(dir, "runner.db"));
    expect((await store.findCaptureToken(hashToken(token)))?.tokenName).toBe("ci");
    await store.close();
    for (const f of ["runner.db", "runner.db-wal"]) {
      const p = join(dir, f);
      if (existsSync(p)) expect(readFileSync(p).includes(Buffer.from(token.slice(6)))).toBe(false);
    }
    expect(admin("token", "create", "acme", "ci").code).toBe(1); // one active token per name
  }, PROCESS_TIMEOUT);

  test("a token name (a capture's requester) or an org name with control characters is refused", () => {
    admin("org", "create", "acme");
    const name = admin("token", "create", "acme", "ci\u001b[2K");
    expect({ code: name.code, out: name.out }).toEqual({ code: 2, out: "" });
    expect(name.err).toContain('token name "ci\\u001b[2K" is not allowed: a token name is 1 to 64 letters, digits, dots, dashes or underscores');
    const org = admin("org", "create", "ev\u0007il");
    expect(org.code).toBe(2);
    expect(org.err).toContain("organization name contains a control character (U+0007 at character 3)");
  }, PROCESS_TIMEOUT);

  test("token list and revoke", () => {
    admin("org", "create", "acme");
    admin("token", "create", "acme", "ci");
    admin("token", "create", "acme", "laptop");
    expect(admin("token", "revoke", "acme", "ci").code).toBe(0);
    const list = JSON.parse(admin("token", "list", "acme", "--json").out) as Array<{ name: string; active: boolean }>;
    expect(list.map((t) => [t.name, t.active])).toEqual([["ci", false], ["laptop", true]]);
    expect(admin("token", "list", "acme").out).toContain("laptop\tactive");
    const again = admin("token", "revoke", "acme", "ci");
    expect(again.code).toBe(1);
    expect(again.err).toContain('no active capture token named "ci"');
  }, PROCESS_TIMEOUT);

  test("bootstrap-token create prints an rpboot_ token", () => {
    admin("org", "create", "acme");
    const r = admin("bootstrap-token", "create", "acme");
    expect(r.code).toBe(0);
    expect(isWellFormedToken(lastLine(r.out), BOOTSTRAP_TOKEN_PREFIX)).toBe(true);
  }, PROCESS_TIMEOUT);

  test("captures list and show --json", async () => {
    admin("org", "create", "acme");
    expect(JSON.parse(admin("captures", "list", "acme", "--json").out)).toEqual([]);
    const store = new SqliteStore(join(dir, "runner.db"));
    const org = (await store.getOrg("acme"))!;
    const q = await store.queueCapture(org.id, "ci", { workload: "w", version: "2", env: "prod", kind: "replicate", durationSec: 30, warmupSec: 0 }, { limit: 20, windowMs: 3_600_000, now: Date.now() });
    if (q.kind !== "queued") throw new Error("not queued");
    await store.completeCapture(q.requestId, { outcome: "failed", reason: "target not running", instrumentation: { probes_requested: 3, probes_attached: 1, missing: [{ probe: "offcpu", reason: "no tracefs" }, { probe: "syscalls", reason: "no tracefs" }] } });
    await store.close();
    const id = q.requestId;
    const shown = JSON.parse(admin("captures", "show", id, "--json").out);
    expect(shown).toMatchObject({
      request_id: id, workload: "w", version: "2", env: "prod", kind: "replicate", status: "done",
      outcome: "failed", reason: "target not running", requester: "ci",
    });
    expect(shown.instrumentation.probes_attached).toBe(1);
    const listed = JSON.parse(admin("captures", "list", "acme", "--json").out);
    expect(listed).toHaveLength(1);
    expect(shown).toMatchObject(listed[0]); // show may add detail (e.g. the diff) to what list gives
    expect(admin("captures", "show", id).out).toContain("1 of 3 probes");
    const missing = admin("captures", "show", "nope", "--json");
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('"nope" does not exist');
  }, PROCESS_TIMEOUT);

  test("usage errors exit 2; a missing --data is named", () => {
    expect(admin("frobnicate").code).toBe(2);
    expect(admin("org", "create").code).toBe(2);
    const r = Bun.spawnSync([...runnerCommand(), "admin", "org", "create", "x"], { stderr: "pipe" });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.toString()).toContain("--data DIR is required");
  }, PROCESS_TIMEOUT);
});
