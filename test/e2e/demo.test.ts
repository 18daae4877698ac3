// The newcomer's main job, as the README's quick start runs it: the compiled `runner demo` with its
// defaults (a control plane, a Profiler as nobody with a setcap'd ptop, the sample service at two
// versions, head + 2 replicates each through the HTTP API). It must find the regression it ships,
// state each capture's instrumentation in the record's own phrase, and leave behind only the flame
// graph it points at: not the store, the tokens, or a copy of ptop holding five capabilities.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { findCollector } from "../../src/demo/machine.ts";
import { REGRESSED_FUNCTION } from "../../src/demo/workload.ts";
import { liveAvailable, runnerCommand } from "../helpers/runner-bin.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();
const collector = live ? findCollector() : null;
if (live && !collector && process.env.RUNNER_REQUIRE_LIVE === "1") throw new Error("RUNNER_REQUIRE_LIVE=1 but ptop is not built");

describeUnless(whyNot([!live, "needs root and BPF"], [!collector, "dist/ptop is not built"]))("runner demo (the quick start's main job)", () => {
  let left = "";
  afterAll(() => {
    if (left) rmSync(left, { recursive: true, force: true });
  });

  test("finds the regression it ships, says how each capture was instrumented, and leaves only its flame graph", async () => {
    const proc = Bun.spawn([...runnerCommand(), "demo"], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect({ code, tail: code === 0 ? "" : `${out.slice(-3000)}\n${err.slice(-2000)}` }).toEqual({ code: 0, tail: "" });
    // Three captures per version (head + 2 replicates), each pushed with every probe attached.
    expect(out.match(/^\s+(head|replicate)\s+…\w+\s+pushed\s+by ci-pipeline\s+fully instrumented$/gm)?.length).toBe(6);
    expect(out).toMatch(new RegExp(`^\\s+${REGRESSED_FUNCTION}\\s+cpu\\s+self\\s+\\+\\d`, "m"));
    expect(out).toContain(`regressed function found: ${REGRESSED_FUNCTION}`);
    const html = /differential flame graph: (\S+)/.exec(out)?.[1];
    expect(html).toBeDefined();
    left = dirname(html!);
    expect(existsSync(html!)).toBe(true);
    expect(readdirSync(left)).toEqual(["diff.html"]);
  }, 300_000);
});
