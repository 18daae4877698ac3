// A refused `runner profiler` (not --boot-only) waits before exiting 78, so that a restart policy
// without back-off (Podman's unless-stopped) does not loop; a stop signal ends the wait at once.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { holdSeconds } from "../../src/profiler/refusal-hold.ts";
import { runnerCommand } from "../helpers/runner-bin.ts";

setDefaultTimeout(60_000);

const ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/tmp" };

describe("refused boot hold", () => {
  test("RUNNER_REFUSED_BOOT_HOLD_SECONDS: digits up to 3600, else the default", () => {
    expect(holdSeconds(undefined)).toBe(60);
    expect(holdSeconds("0")).toBe(0);
    expect(holdSeconds("5")).toBe(5);
    expect(holdSeconds("3601")).toBe(60);
    expect(holdSeconds("-1")).toBe(60);
    expect(holdSeconds("1e3")).toBe(60);
  });

  test("a refused boot stays up for the hold, then exits 78; --boot-only does not wait", async () => {
    const t0 = performance.now();
    const p = Bun.spawn([...runnerCommand(), "profiler"], { env: { ...ENV, RUNNER_REFUSED_BOOT_HOLD_SECONDS: "3" }, stdout: "pipe", stderr: "pipe" });
    const code = await p.exited;
    const elapsed = performance.now() - t0;
    expect(code).toBe(78);
    expect(elapsed).toBeGreaterThanOrEqual(3000);
    expect(await new Response(p.stderr).text()).toContain("waiting 3 s before exiting");
    const once = Bun.spawnSync([...runnerCommand(), "profiler", "--boot-only"], { env: ENV, stderr: "pipe" });
    expect(once.exitCode).toBe(78);
    expect(once.stderr.toString()).not.toContain("waiting");
  });

  test("SIGTERM during the default hold ends it at once with exit 78", async () => {
    const p = Bun.spawn([...runnerCommand(), "profiler"], { env: ENV, stdout: "pipe", stderr: "pipe" });
    const reader = p.stderr.getReader();
    let seen = "";
    while (!seen.includes("waiting 60 s")) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    const t0 = performance.now();
    p.kill("SIGTERM");
    expect(await p.exited).toBe(78);
    expect(performance.now() - t0).toBeLessThan(10_000);
  });
});
