// The version diff on an interpreted language's functions, end to end: a small service captured five
// times per version by the compiled ptop (the target as uid 65534, no flag), v2 making one function
// (the cause) 30% slower; `runner witness diff` on those streams flags the cause and no sibling
// (their shares fall only by dilution), and so does the compiled `runner server`'s diff on arrival:
// the same streams pushed by a Profiler over the tunnel (head + replicates per version), v2 head's
// capture screen read in Chromium. Shared by ptop-python-diff (CPython), ptop-node-diff (V8) and ptop-java-diff (HotSpot).
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runnerCommand, REPO_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import { NOBODY, runPtop, sleep, writeTargets } from "./ptop-harness.ts";
import { testUnless } from "../helpers/skip.ts";
import { parseProfile } from "../../src/witness/parse.ts";
import { signedPercent } from "../../src/witness/index.ts";
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM, CHROMIUM_FLAGS, chromiumMissing } from "../helpers/chromium.ts";
import { startPushingProfiler } from "../helpers/pushing-profiler.ts";
import { until } from "../helpers/until.ts";

/** Seconds per capture: see the capture design in diffTests. */
export const CAPTURE_SEC = 10;
const SHOTS = join(REPO_ROOT, ".test-results/screenshots");

export interface DiffSpec {
  /** The test's temporary directory and its setcap'd ptop, known once beforeAll ran. */
  dir: () => string;
  ptop: () => string;
  /** The workload name (the service's comm: at most 15 characters, this run's own). */
  workload: () => string;
  /** The service's command line for version "1" or "2" (run as uid 65534), and how long it runs
   *  before the first capture (its start-up, and a JIT's tier-up). */
  command: (version: string) => string[];
  startMs: number;
  /** Then, where a JIT's warm-up has no fixed length, until the service (its pid) is warm. */
  warm?: (pid: number) => Promise<void>;
  /** The function v2 makes 30% slower, its siblings, and the cause's true share change. */
  cause: string;
  siblings: string[];
  trueChange: number;
  /** The workload name the pushed captures carry, and the screenshot's file name. */
  pushed: string;
  screenshot: string;
}

/** The two tests: witness diff on the streams, then the server's diff on the capture screen. */
export function diffTests(spec: DiffSpec) {
  async function captures(version: string, n: number): Promise<string[]> {
    const targets = writeTargets(spec.dir(), { targets: [{ workload: spec.workload() }] }, "targets-svc.json");
    const proc = Bun.spawn([...NOBODY, "env", "HOME=/tmp", ...spec.command(version)], { stdout: "pipe", stderr: "pipe" });
    const files: string[] = [];
    try {
      await sleep(spec.startMs);
      await spec.warm?.(proc.pid);
      for (let i = 0; i < n; i++) {
        const run = await runPtop(spec.ptop(), ["--targets", targets, "--workload", spec.workload(), "--duration", String(CAPTURE_SEC), "--frequency", "999", "--probes", "cpu"]);
        expect(run.exitCode).toBe(PTOP_EXIT.ok);
        // Only the service this test started: any other process would blur both versions.
        expect(run.records.flatMap((r) => (r.type === "process" ? [r.pid] : []))).toEqual([proc.pid]);
        const file = join(spec.dir(), `svc-v${version}-${i}.jsonl`);
        writeFileSync(file, run.stdout);
        files.push(file);
      }
    } finally {
      proc.kill("SIGKILL");
      await proc.exited;
    }
    return files;
  }

  // The capture design is what decides it (bench/RESULTS.md, "a Python function 30% slower"): the
  // cpu axis samples the thread only while it runs, so on a loaded host a capture holds far fewer
  // than 999·T samples. With five captures per version, real captures of a Python service thinned
  // to 2,700 / 1,000 / 500 samples each gave 100 / 79–97 / 40–50 flags in 100. So each capture is
  // 10 s (a target getting a fifth of a core still gives ~2,000 samples), and the test says how
  // many it got.
  let before: string[] = [];
  let after: string[] = [];
  /** The cause's cpu inclusive change as `runner witness diff` computed it. */
  let witnessChange = Number.NaN;
  const samplesOf = (f: string) => parseProfile(readFileSync(f), f).axes.cpu!.stacks.reduce((t, s) => t + s.value, 0);

  test(`runner witness diff flags ${spec.cause} (cpu inclusive) up as the cause, near its true share change; no sibling flagged`, async () => {
    before = await captures("1", 5);
    after = await captures("2", 5);
    const counts = { before: before.map(samplesOf), after: after.map(samplesOf) };
    console.log(`cpu samples per capture: ${JSON.stringify(counts)}`);
    const r = Bun.spawnSync([...runnerCommand(), "witness", "diff", "--before", before.join(","), "--after", after.join(","), "--json"], { stdout: "pipe", stderr: "pipe" });
    if (process.env.PYDIFF_DUMP) writeFileSync(process.env.PYDIFF_DUMP, r.stdout);
    if (process.env.PYDIFF_KEEP) Bun.spawnSync(["cp", ...before, ...after, process.env.PYDIFF_KEEP]);
    type Norm = { relative_change: number; interval: [number, number] };
    const out = JSON.parse(r.stdout.toString()) as {
      verdict: string;
      reason: string;
      changes: { function: string; axis: string; kind: string; flagged: boolean; role: string | null; direction: string; relative_change: number; adjusted_p: number; normalisations: { share?: Norm } }[];
    };
    const step = (f: string) => out.changes.find((c) => c.axis === "cpu" && c.kind === "inclusive" && c.function === f);
    const own = step(spec.cause)!;
    witnessChange = own.relative_change;
    console.log(JSON.stringify({ verdict: out.verdict, [spec.cause]: { flagged: own.flagged, adjusted_p: own.adjusted_p, share: own.normalisations.share } }));
    expect({ verdict: out.verdict, flagged: own.flagged, direction: own.direction, counts }).toEqual({ verdict: "changed", flagged: true, direction: "up", counts });
    // The estimate must be near the true change; the interval is not asked to cover it, which a 95%
    // interval fails in about one run of twenty by design.
    const share = own.normalisations.share!;
    expect({ low: share.interval[0] > 0, near: Math.abs(share.relative_change - spec.trueChange) < 0.08 }).toEqual({ low: true, near: true });
    // The siblings do the same work per request: their shares fall (dilution), but no sibling is
    // flagged either way, and the verdict counts one changed function, the cause.
    for (const f of spec.siblings) {
      const c = step(f)!;
      expect({ f, down: c.normalisations.share!.relative_change < 0, flagged: out.changes.some((x) => x.function === f && x.flagged) }).toEqual({ f, down: true, flagged: false });
    }
    expect({ role: own.role, reason: out.reason }).toEqual({ role: "cause", reason: expect.stringMatching(new RegExp(`^1 function changed on cpu: ${spec.cause} \\+`)) });
  }, 400_000);

  testUnless(chromiumMissing())("the compiled server's diff on arrival flags it on v2 head's capture screen, read in Chromium", async () => {
    expect(before.length && after.length).toBe(5);
    const site = await startPushingProfiler(spec.dir());
    mkdirSync(SHOTS, { recursive: true });
    let browser: Browser | undefined;
    try {
      // The streams ptop wrote, pushed as a Profiler pushes them: each version's head, then its replicates.
      const push = async (files: string[], version: string) => {
        const ids: string[] = [];
        for (const [i, f] of files.entries()) ids.push(await site.push({ workload: spec.pushed, version, kind: i === 0 ? "head" : "replicate", duration_sec: CAPTURE_SEC }, readFileSync(f, "utf8"), ["cpu"]));
        return ids[0]!;
      };
      await push(before, "1");
      const head = await push(after, "2");
      // Every replicate re-runs the head's diff; the last one holds all ten captures.
      let last: unknown = null;
      const diff = await until("v2 head's diff over 5 + 5 captures", 60_000, async () => {
        const d = (last = site.show(head).diff);
        return d?.note.includes("; 4 replicates) using 4 replicates of 2") ? d : null;
      }).catch((err: Error) => {
        throw new Error(`${err.message}; the head's diff is ${JSON.stringify(last)}`);
      });
      expect(diff.verdict).toBe("changed");

      browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.setDefaultTimeout(60_000);
      await page.goto(`${site.url}/profiling/captures/${head}`, { waitUntil: "domcontentloaded" });
      expect(new URL(page.url()).pathname).toBe("/login");
      await page.getByLabel("Organization").fill(site.org);
      await page.getByLabel("Email").fill(site.member.email);
      await page.getByLabel("Password").fill(site.member.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(`**/profiling/captures/${head}`, { waitUntil: "load" });
      await page.screenshot({ path: join(SHOTS, spec.screenshot), fullPage: true, timeout: 60_000 });

      const verdict = page.locator("#verdict");
      expect({ verdict: await verdict.getAttribute("data-verdict"), text: await verdict.textContent() }).toMatchObject({ verdict: "changed", text: expect.stringMatching(/^changed ↑/) });
      // The ranked table's row for the cause: its total (inclusive) cpu cost flagged as a
      // regression, with the change `runner witness diff` computed from the same streams.
      const row = page.locator('table.changes tbody tr[data-axis="cpu"][data-kind="inclusive"]', { has: page.locator("td.fn", { hasText: new RegExp(`^${spec.cause}$`) }) });
      expect(await row.count()).toBe(1);
      const change = signedPercent(witnessChange);
      const words = (await row.locator("td.words").textContent())!;
      expect({
        cls: await row.getAttribute("class"),
        change: await row.locator("td").nth(2).textContent(),
        badge: await row.locator(".chg").textContent(),
        words: words.startsWith(`Regression: grew by ${change.slice(1)} (adjusted p `) ? "regression, by the change" : words,
      }).toEqual({ cls: "flag-up", change, badge: "↑ regression", words: "regression, by the change" });
      const flagged = await page.locator('table.changes tbody tr[class^="flag-"] td.fn').allTextContents();
      for (const f of spec.siblings) expect({ f, flagged: flagged.includes(f) }).toEqual({ f, flagged: false });
      // The first view leads with the cause.
      expect(await page.locator("#causes li.cause").allTextContents()).toEqual([expect.stringMatching(new RegExp(`^↑ regression ${spec.cause} cpu · (self|total) \\+`))]);
      // The flame graph paints the cause's frame as a flagged regression and says so to a reader.
      const frame = page.locator("#graph-cpu .fr", { hasText: new RegExp(`^${spec.cause}$`) }).first();
      const label = (await frame.getAttribute("aria-label"))!;
      expect(label).toContain(`function total change ${change}`);
      expect(label).toContain("CHANGED: regression");
    } finally {
      await browser?.close();
      await site.stop();
    }
  }, 300_000);
}
