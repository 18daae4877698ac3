// The newcomer's main job, as the README's quick start runs it: the compiled `runner demo` with its
// defaults (a control plane, a Profiler as nobody with a setcap'd ptop, the sample service at two
// versions, head + 3 replicates each through the HTTP API). It must find the regression it ships —
// exactly one changed function, apply_discounts, in the verdict sentence, the Profiling list's badge
// and diff.html (its callers moved with it: secondary, not counted) — state each capture's
// instrumentation in the record's own phrase, and leave behind only the flame graph it points at:
// not the store, the tokens, or a copy of ptop holding five capabilities.
import { afterAll, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
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
    // Four captures per version (head + 3 replicates), each pushed with every probe attached.
    expect(out.match(/^\s+(head|replicate)\s+…\w+\s+pushed\s+by ci-pipeline\s+fully instrumented$/gm)?.length).toBe(8);
    expect(out).toMatch(new RegExp(`^\\s+${REGRESSED_FUNCTION}\\s+cpu\\s+self\\s+\\+\\d`, "m"));
    // One changed function, counted the same way in each place a reader meets the verdict.
    const sentence = /^\s+verdict: (.*)$/m.exec(out)?.[1] ?? out;
    expect(sentence).toMatch(new RegExp(`^changed — 1 function changed on cpu(, \\w+)*: ${REGRESSED_FUNCTION} \\+\\d+\\.\\d%`));
    expect(/^\s+Profiling list badge: (.*)$/m.exec(out)?.[1]).toBe("changed ↑ regression (1↑)");
    expect(out.match(/^\s+\S+\s+cpu\s+(self|inclusive)\s+[+-]\d/gm)?.every((l) => l.trim().startsWith(REGRESSED_FUNCTION))).toBe(true);
    expect(out).toContain(`regressed function found: ${REGRESSED_FUNCTION}`);
    const html = /differential flame graph: (\S+)/.exec(out)?.[1];
    expect(html).toBeDefined();
    left = dirname(html!);
    expect(existsSync(html!)).toBe(true);
    const page = readFileSync(html!, "utf8");
    expect(page).toMatch(new RegExp(`<p id="reason">1 function changed on cpu(, \\w+)*: ${REGRESSED_FUNCTION} \\+`));
    const causes = [...page.matchAll(/<li class="cause (up|down)"><b>([^<]+)<\/b> \((\w+)\)/g)].map((m) => `${m[2]} ${m[1]}`);
    expect(new Set(causes)).toEqual(new Set([`${REGRESSED_FUNCTION} up`]));
    expect(readdirSync(left)).toEqual(["diff.html"]);
  }, 300_000);
});
