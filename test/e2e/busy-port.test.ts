// A listener whose address is already held fails at start, naming the address and the setting:
// `runner server --listen`, `--tunnel-listen`, and the Profiler's RUNNER_LOCAL_LISTEN. A second
// server used to start silently on a busy --listen (SO_REUSEPORT, on by default in Elysia's Bun
// adapter) and the kernel split requests between two unrelated stores.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findCollector, freePort } from "../../src/demo/machine.ts";
import { OneMachine } from "../../src/demo/one-machine.ts";
import { liveAvailable, runnerCommand } from "../helpers/runner-bin.ts";
import { until } from "../helpers/until.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const dir = mkdtempSync(join(tmpdir(), "busy-port-"));

/** Runs a command that should refuse to start; a command still running after 15 s has started. */
async function mustFailToStart(argv: string[], env: Record<string, string | undefined> = process.env) {
  const p = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe", env });
  const timer = setTimeout(() => p.kill("SIGKILL"), 15_000);
  const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  clearTimeout(timer);
  return { code, signal: p.signalCode, out, err };
}

describe("runner server on a busy address", () => {
  let holder: Subprocess;
  let api = 0;
  let tunnel = 0;

  beforeAll(async () => {
    api = await freePort();
    tunnel = await freePort();
    holder = Bun.spawn(
      [...runnerCommand(), "server", "--listen", `127.0.0.1:${api}`, "--tunnel-listen", `127.0.0.1:${tunnel}`, "--data", join(dir, "first")],
      { stdout: "ignore", stderr: "ignore" },
    );
    await until("first server /healthz", 15_000, async () => (await fetch(`http://127.0.0.1:${api}/healthz`).catch(() => null))?.ok);
  }, 30_000);
  afterAll(async () => {
    holder?.kill("SIGTERM");
    await holder?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  test("--listen held by another server: exit 1 naming the address, and the first server keeps its port", async () => {
    const r = await mustFailToStart([...runnerCommand(), "server", "--listen", `127.0.0.1:${api}`, "--data", join(dir, "second")]);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(1);
    expect(r.err).toContain(`127.0.0.1:${api}`);
    expect(r.err).toContain("--listen");
    expect(r.err).toContain("already in use");
    expect(r.err).not.toContain("    at ");
    expect((await fetch(`http://127.0.0.1:${api}/healthz`)).ok).toBe(true);
  }, 30_000);

  test("--tunnel-listen held: exit 1 naming the tunnel address", async () => {
    const r = await mustFailToStart([...runnerCommand(), "server", "--listen", "127.0.0.1:0", "--tunnel-listen", `127.0.0.1:${tunnel}`, "--data", join(dir, "third")]);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(1);
    expect(r.err).toContain(`127.0.0.1:${tunnel}`);
    expect(r.err).toContain("--tunnel-listen");
    expect(r.err).toContain("already in use");
  }, 30_000);
});

const live = liveAvailable();
const collector = live ? findCollector() : null;
if (live && !collector && process.env.RUNNER_REQUIRE_LIVE === "1") throw new Error("RUNNER_REQUIRE_LIVE=1 but ptop is not built");

// The Profiler's start needs its boot to pass (a setcap'd ptop, an unprivileged user): root only.
describeUnless(whyNot([!live, "needs root and BPF"], [!collector, "dist/ptop is not built"]))("Profiler with RUNNER_LOCAL_LISTEN on a busy address", () => {
  let m: OneMachine;
  let held: ReturnType<typeof Bun.serve>;

  beforeAll(async () => {
    m = new OneMachine({ dir: mkdtempSync(join(tmpdir(), "busy-local-")), collectorSource: collector!, targets: ["shop"], tracefs: false });
    await m.setUp();
    held = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("someone else\n") });
  }, 120_000);
  afterAll(async () => {
    held?.stop(true);
    await m?.tearDown();
  });

  test("the supervisor exits 1 naming RUNNER_LOCAL_LISTEN and the address, without enrolling first", async () => {
    const p = await m.startProfiler("node-busy", { RUNNER_LOCAL_LISTEN: `127.0.0.1:${held.port}` });
    const timer = setTimeout(() => p.kill("SIGKILL"), 30_000);
    const code = await p.exited;
    clearTimeout(timer);
    await Bun.sleep(100); // the collected log lines arrive after the exit
    const lines = m.logs.filter((l) => l.startsWith("profiler node-busy")).join("\n");
    expect(p.signalCode).toBeNull();
    expect(code).toBe(1);
    expect(lines).toContain(`cannot listen on 127.0.0.1:${held.port} (RUNNER_LOCAL_LISTEN): the address is already in use`);
    // It failed before enrolling (which can wait on the control plane for ever).
    expect(lines).not.toContain("enrolled");
  }, 60_000);
});
