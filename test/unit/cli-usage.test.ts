// One behaviour for a malformed command line in the roles that share src/cli-args.ts (and the
// Profiler's flag check, which uses its did-you-mean): the unknown
// option named in one line (balanced quotes, the option meant when it is a typo), exit 2; and the
// smaller messages a pipeline owner meets: a refused token says what is wrong with it, a 403 says
// its reason once, a typo'd `runner server --data` names the new store it creates.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closestOption } from "../../src/cli-args.ts";
import { createLogger } from "../../src/log.ts";
import { CAPTURE_TOKEN_PREFIX, generateToken, hashToken } from "../../src/protocol/token-format.ts";
import { startServer, type RunningServer } from "../../src/server/start-server.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import { runnerCommand } from "../helpers/runner-bin.ts";

const dir = mkdtempSync(join(tmpdir(), "runner-cli-usage-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawn([...runnerCommand(), ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err, first: err.split("\n")[0]! };
}

test("did you mean: a swapped pair, a missing letter, a prefix; nothing for a stranger", () => {
  expect(closestOption("jsno", ["json", "html"])).toBe("json");
  expect(closestOption("jso", ["json", "html"])).toBe("json");
  expect(closestOption("timout", ["timeout", "token"])).toBe("timeout");
  expect(closestOption("zzzzzz", ["json", "html"])).toBeNull();
});

describe("usage errors exit 2 with one line naming the problem", () => {
  test.each([
    [["capture", "--jsno"], "runner capture: unknown option --jsno (did you mean --json?)"],
    [["admin", "--data", dir, "captures", "list", "acme", "--jsno"], "runner admin: unknown option --jsno (did you mean --json?)"],
    [["server", "--dtaa", dir], "runner server: unknown option --dtaa (did you mean --data?)"],
    [["demo", "--kepp"], "runner demo: unknown option --kepp (did you mean --keep?)"],
    [["witness", "diff", "--jsno"], "witness: unknown option --jsno (did you mean --json?)"],
    [["doctor", "--jsno"], "runner doctor: unknown option --jsno (did you mean --json?)"],
    [["admin", "--data", dir, "migrate", "extra"], "runner admin: expected: runner admin --data DIR migrate, or with RUNNER_DATABASE_URL set: runner admin migrate"],
    [["server", "--listen", "nope", "--data", dir], 'runner server: --listen must be HOST:PORT (e.g. 127.0.0.1:8080), got "nope"'],
    [["server", "--tls-cert", "x.pem", "--data", dir], "runner server: --tls-cert and --tls-key go together"],
    [["demo", "--duration", "1"], 'runner demo: --duration must be a number from 5 to 300, got "1"'],
  ])("runner %p", async (args, line) => {
    const r = await run(args);
    expect({ code: r.code, first: r.first }).toEqual({ code: 2, first: line });
    // parseArgs's own wording ended in an unbalanced quote: every quote here is paired
    expect((r.first.match(/"/g) ?? []).length % 2).toBe(0);
    expect((r.first.match(/'/g) ?? []).length % 2).toBe(0);
  }, 30_000);
});

describe("runner capture against a real server", () => {
  let store: SqliteStore;
  let server: RunningServer;
  let offToken: string;
  beforeAll(async () => {
    store = new SqliteStore(join(dir, "api.db"));
    server = await startServer({ hostname: "127.0.0.1", port: 0, store, logger: createLogger("test", "silent") });
    await store.createOrg("other");
    offToken = generateToken(CAPTURE_TOKEN_PREFIX);
    await store.addCaptureToken("other", "ci", hashToken(offToken));
  });
  afterAll(async () => {
    await server.stop();
    await store.close();
  });
  const capture = (token: string) => run(["capture", "--url", server.url, "--workload", "w", "--version", "1"], { RUNNER_CAPTURE_TOKEN: token });

  test("a malformed token is refused with what is wrong with it, not 'expected an rpcap_ token'", async () => {
    const r = await capture("rpcap_notarealtoken");
    expect(r.code).toBe(1);
    expect(r.first).toBe("runner capture: 401: invalid capture token: it is 19 characters long; a capture token is 55 (rpcap_ and 49 letters and digits): it was cut or pasted incompletely");
    const other = await capture("rpboot_notarealtoken");
    expect(other.first).toBe("runner capture: 401: invalid capture token: this is a bootstrap token (rpboot_…), not a capture token (rpcap_…)");
    const typo = generateToken(CAPTURE_TOKEN_PREFIX).replace(/.$/, (c) => (c === "a" ? "b" : "a"));
    expect((await capture(typo)).first).toBe("runner capture: 401: invalid capture token: its checksum does not match: a character was mistyped or changed");
  }, 30_000);

  test("a 403 says its reason once", async () => {
    const r = await capture(offToken);
    expect(r.code).toBe(1);
    expect(r.first).toBe('runner capture: 403: the Profiler is not enabled for organization "other"; an owner or admin enables it in Settings');
  }, 30_000);
});

test("runner server --data with no store there names the new store in one line; an existing one is opened quietly", async () => {
  const typo = join(dir, "dtaa");
  const line = `runner server: created a new, empty store at ${join(typo, "runner.db")} (none was there; if you meant an existing store, stop and check --data)`;
  for (const expectLine of [true, false]) {
    const p = Bun.spawn([...runnerCommand(), "server", "--listen", "127.0.0.1:0", "--data", typo], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const reader = p.stdout.getReader();
    let seen = "";
    while (!seen.includes("control plane listening")) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    p.kill("SIGTERM");
    const [err] = await Promise.all([new Response(p.stderr).text(), p.exited]);
    expect(seen).toContain("control plane listening");
    expect(err.includes(line)).toBe(expectLine);
  }
}, 60_000);
