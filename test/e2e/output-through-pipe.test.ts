// Every byte of a command's output reaches a reader that is slow to read, before the exit code;
// a reader that goes away ends the command quietly with 141. Each command class that can print
// more than a pipe's 64 KiB runs through the compiled binary into `(sleep 1; cat)`: the writer
// finds the pipe full and must wait for the reader (it used to exit 0 with 65,536 bytes sent).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runnerCommand } from "../helpers/runner-bin.ts";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import { CAPTURE_TOKEN_PREFIX, generateToken, hashToken } from "../../src/protocol/token-format.ts";

const dir = mkdtempSync(join(tmpdir(), "pipe-out-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PIPE_BUFFER = 64 * 1024;
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const runner = runnerCommand().map(quote).join(" ");

/** Runs `runner ARGS` once into a file and once into a slow reader; returns both outputs and statuses. */
function throughSlowPipe(args: string[]) {
  const direct = join(dir, "direct.out");
  const piped = join(dir, "piped.out");
  const cmd = `${runner} ${args.map(quote).join(" ")}`;
  const script = `${cmd} > ${direct}; echo "direct $?"; ${cmd} | (sleep 1; cat > ${piped}); echo "piped \${PIPESTATUS[0]}"`;
  const r = Bun.spawnSync(["bash", "-c", script], { stdout: "pipe", stderr: "pipe" });
  const statuses = r.stdout.toString();
  return {
    statuses,
    stderr: r.stderr.toString(),
    direct: readFileSync(direct, "utf8"),
    piped: readFileSync(piped, "utf8"),
  };
}

function expectWhole(args: string[], json: boolean) {
  const r = throughSlowPipe(args);
  expect(r.stderr).toBe("");
  expect(r.statuses).toBe("direct 0\npiped 0\n");
  expect(r.direct.length).toBeGreaterThan(2 * PIPE_BUFFER);
  expect(r.piped.length).toBe(r.direct.length);
  expect(r.piped).toBe(r.direct);
  if (json) JSON.parse(r.piped);
}

// Folded profiles with enough functions that the diff's JSON and the fold are several pipe buffers.
function writeFolded(name: string, factor: number, seed: number): string {
  const lines: string[] = [];
  let s = seed;
  for (let i = 0; i < 120; i++) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const n = Math.round(10_000 * (i % 3 === 0 ? factor : 1)) + (s % 300);
    lines.push(`main;handler_${i % 40};work_function_number_${i} ${n}`);
  }
  for (let i = 0; i < 4000; i++) lines.push(`main;cold_path_${i};leaf_${i} 1`);
  const path = join(dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

describe("output through a slow pipe arrives whole", () => {
  test("agent catalog --json", () => {
    expectWhole(["agent", "catalog", "--json"], true);
  }, 60_000);

  test("witness diff --json", () => {
    const before = [writeFolded("a0.folded", 1, 1), writeFolded("a1.folded", 1, 2)].join(",");
    const after = [writeFolded("b0.folded", 1.5, 3), writeFolded("b1.folded", 1.5, 4)].join(",");
    expectWhole(["witness", "diff", "--before", before, "--after", after, "--json"], true);
  }, 60_000);

  test("witness fold", () => {
    expectWhole(["witness", "fold", writeFolded("fold.folded", 1, 5)], false);
  }, 60_000);

  describe("admin captures list --json", () => {
    const data = join(dir, "store");
    beforeAll(async () => {
      mkdirSync(data, { recursive: true });
      const store = new SqliteStore(join(data, "runner.db"));
      const org = await store.createOrg("acme");
      const policy = { limit: 10_000, windowMs: 3_600_000, now: Date.now() };
      for (let i = 0; i < 400; i++) {
        const r = await store.queueCapture(org.id, "ci", { workload: `checkout-${i}`, version: `2.4.${i}`, env: "staging", kind: "head", durationSec: 60, warmupSec: 5 }, policy);
        if (r.kind !== "queued") throw new Error(`capture ${i} not queued: ${r.kind}`);
      }
      await store.close();
    });
    test("400 records", () => {
      expectWhole(["admin", "--data", data, "captures", "list", "acme", "--json"], true);
    }, 60_000);
  });
});

test("a reader that closes the pipe early ends the command quietly with 141", () => {
  const r = Bun.spawnSync(["bash", "-c", `${runner} agent catalog --json | head -c 1 >/dev/null; echo "status \${PIPESTATUS[0]}"`], { stdout: "pipe", stderr: "pipe" });
  expect(r.stdout.toString()).toBe("status 141\n");
  expect(r.stderr.toString()).toBe("");
}, 60_000);

test("a writer waiting for the pipe to drain when the reader leaves still ends with 141 (witness fold of a large file)", () => {
  // Several MB of output: the command waits for "drain" on a full pipe when `head` leaves; it used
  // to wait forever, and Bun, with nothing else pending, ended it with status 0.
  const big = join(dir, "big.cpu.folded");
  const lines: string[] = [];
  for (let i = 0; i < 200_000; i++) lines.push(`main;f${i % 5000};g${i} ${1 + (i % 9)}`);
  writeFileSync(big, lines.join("\n") + "\n");
  const r = Bun.spawnSync(["bash", "-c", `${runner} witness fold --axis cpu ${quote(big)} | head -c 10 >/dev/null; echo "status \${PIPESTATUS[0]}"`], { stdout: "pipe", stderr: "pipe" });
  expect(r.stdout.toString()).toBe("status 141\n");
  expect(r.stderr.toString()).toBe("");
});

test("a server whose log reader goes away keeps serving (only one-shot commands end with 141)", async () => {
  const data = join(dir, "server");
  mkdirSync(data, { recursive: true });
  const store = new SqliteStore(join(data, "runner.db"));
  await store.createOrg("acme");
  await store.setProfilerEnabled("acme", true);
  const token = generateToken(CAPTURE_TOKEN_PREFIX);
  await store.addCaptureToken("acme", "ci", hashToken(token));
  await store.close();
  const proc = Bun.spawn([...runnerCommand(), "server", "--listen", "127.0.0.1:0", "--data", data], { stdout: "pipe", stderr: "pipe" });
  let out = "";
  let url = "";
  for await (const chunk of proc.stdout) {
    out += new TextDecoder().decode(chunk);
    url = /"url":"(http:\/\/[^"]+)"/.exec(out)?.[1] ?? "";
    if (url) break; // leaving the loop closes our end of the server's stdout
  }
  try {
    // Each answer logs a line into the closed pipe; the server must neither die nor print a trace.
    for (let i = 0; i < 5; i++) {
      const headers = { authorization: `Bearer ${token}` };
      const res = await fetch(`${url}/api/profiling/captures`, { method: "POST", headers, body: JSON.stringify({ workload: "w", version: `${i}` }) });
      expect(res.status).toBe(202);
    }
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(proc.exitCode).toBeNull();
  } finally {
    proc.kill("SIGTERM");
  }
  expect(await proc.exited).toBe(0);
  expect(await new Response(proc.stderr).text()).toBe("");
}, 60_000);
