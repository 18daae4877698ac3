// Every page of the app in real headless Chromium with its JavaScript running, on the demo's own
// data (the six captures `runner demo --keep` stored: ptop's streams of shop 1.0.0 and 1.1.0, with
// cpu, offcpu, syscalls and a locks axis ptop declared but never sampled; test/fixtures/profiles/demo)
// and on every axis combination around it, made with the synthetic generator: an axis empty on
// both sides, empty on one side only, absent from the head (a probe that did not attach), and a
// capture on its own whose cpu axis is empty. Any page error or console error fails the test; so
// does a flame graph drawn as an empty box, and a control (axis and cost switches, searches) that
// start-up never wired.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { instrumentationFromStream } from "../../src/profiler/instrumentation.ts";
import { toRecordInstrumentation } from "../../src/server/dispatch/merge.ts";
import { AxisBuilder, type AxisProfile, type Capture } from "../../src/witness/model.ts";
import { parseStream } from "../../src/witness/stream.ts";
import { REPO_ROOT } from "../helpers/runner-bin.ts";
import { makeProgram, rng, sampleCapture } from "../fixtures/profiles/synthetic.ts";
import { CHROMIUM, CHROMIUM_FLAGS, chromiumMissing } from "../helpers/chromium.ts";
import { describeUnless } from "../helpers/skip.ts";
import { PASSWORD, startWeb, type Web } from "../unit/web-harness.ts";

const noChromium = chromiumMissing();
const STEP = 180_000;
const REGRESSED = "shop::pricing::DiscountEngine::apply_discounts_for_loyal_customers";
const FULL = { probes_requested: 4, probes_attached: 4, missing: [] };

let web: Web;
let browser: Browser;
let ctx: BrowserContext;
const ids: Record<string, string> = {};

/** A locks axis as ptop writes it for a process that never waited on a lock: declared, no stacks. */
const emptyAxis = (axis: string, unit: AxisProfile["unit"]): AxisProfile => new AxisBuilder(axis, unit).profile;

/** The demo's recorded captures of one version, pushed as its Profiler pushed them. */
async function demoVersion(version: string): Promise<void> {
  for (const [i, name] of ["head", "replicate-1", "replicate-2"].entries()) {
    const stream = readFileSync(join(REPO_ROOT, "test/fixtures/profiles/demo", `shop-${version}-${name}.stream.jsonl`), "utf8");
    const instrumentation = toRecordInstrumentation(instrumentationFromStream(stream, ["cpu", "offcpu", "syscalls", "locks"]));
    ids[`shop@${version}${i ? `#${i}` : ""}`] = await web.pushCapture("acme", { workload: "shop", version, env: "prod", kind: i ? "replicate" : "head" }, parseStream(stream), instrumentation);
  }
}

/** One synthetic capture of the demo's shape: cpu, offcpu and syscalls sampled; `locks` sampled only when asked. */
function demoCapture(seed: number, change: Record<string, number>, o: { locks?: boolean; without?: string; emptyCpu?: boolean } = {}): Capture {
  const p = makeProgram({ seed: 21, stacks: 60, leaves: 20, cv: 0.01, targetShare: 0.05 });
  const r = rng(seed);
  const axes: Record<string, AxisProfile> = {};
  for (const axis of ["cpu", "offcpu", "syscalls", "locks"]) {
    if (axis === o.without) continue;
    const sampled = axis === "locks" ? o.locks === true : !(axis === "cpu" && o.emptyCpu);
    axes[axis] = sampled ? sampleCapture(p, r, { samples: 50_000, axis, change }).axes[axis]! : emptyAxis(axis, axis === "cpu" ? "samples" : "nanoseconds");
  }
  // The regressed function has a C++-length name, long enough to wrap if the table let it.
  for (const a of Object.values(axes)) for (const f of a.frames) if (f.name === "target") f.name = REGRESSED;
  const missing = o.without ? [{ axis: o.without, reason: "tracefs not mounted at /sys/kernel/tracing" }] : [];
  return { meta: { source: "stream", partial: false, measuredSec: 20, workload: "shop" }, axes, missing };
}

async function versionOf(workload: string, version: string, n: number, make: (i: number) => Capture): Promise<void> {
  for (let i = 0; i < n; i++) {
    const c = make(i);
    const instrumentation = c.missing.length ? { probes_requested: 4, probes_attached: 3, missing: c.missing.map((m) => ({ probe: m.axis, reason: m.reason })) } : FULL;
    const id = await web.pushCapture("acme", { workload, version, env: "prod", kind: i ? "replicate" : "head" }, c, instrumentation);
    ids[`${workload}@${version}${i ? `#${i}` : ""}`] = id;
  }
}

beforeAll(async () => {
  if (noChromium) return;
  web = await startWeb();
  await web.member("acme", "owner@acme.test", "owner");
  await web.store.setProfilerEnabled("acme", true);
  // The demo's own captures; then its shape again with a clear regression of a long C++ name.
  await demoVersion("1.0.0");
  await demoVersion("1.1.0");
  await versionOf("pricing", "1.0.0", 3, (i) => demoCapture(100 + i, {}));
  await versionOf("pricing", "1.1.0", 3, (i) => demoCapture(200 + i, { target: 1.6 }));
  // Locks sampled only in the new version; offcpu did not attach on the new head.
  await versionOf("mixed", "1", 2, (i) => demoCapture(300 + i, {}));
  await versionOf("mixed", "2", 2, (i) => demoCapture(400 + i, {}, { locks: true, without: i ? undefined : "offcpu" }));
  // One capture on its own (no earlier version) whose cpu axis has no samples.
  await versionOf("idle", "1", 1, () => demoCapture(500, {}, { emptyCpu: true }));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const p = await ctx.newPage();
  await p.goto(`${web.url}/login`, { waitUntil: "load" });
  await p.getByLabel("Organization").fill("acme");
  await p.getByLabel("Email").fill("owner@acme.test");
  await p.getByLabel("Password").fill(PASSWORD);
  await p.getByRole("button", { name: "Sign in" }).click();
  await p.waitForURL(/\/profiling$/, { waitUntil: "domcontentloaded" });
  await p.close();
}, STEP);

afterAll(async () => {
  await browser?.close();
  await web?.stop();
}, 60_000);

/** Opens `path` with the page's errors and console errors collected. */
async function open(path: string): Promise<{ page: Page; errors: string[] }> {
  const page = await ctx.newPage();
  page.setDefaultTimeout(60_000);
  const errors: string[] = [];
  page.on("pageerror", (e) => void errors.push(`${path}: ${e.message}`));
  page.on("console", (m) => void (m.type() === "error" && errors.push(`${path}: console: ${m.text()}`)));
  await page.goto(web.url + path, { waitUntil: "load" });
  return { page, errors };
}

/** Every drawn flame graph has frames, and each figure's search was wired by start-up. */
async function flameGraphsDrawn(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const bad: string[] = [];
    for (const fig of document.querySelectorAll<HTMLElement>("figure.flame")) {
      const g = fig.querySelector(".flame-graph");
      if (!g || g.querySelectorAll(".fr").length === 0) bad.push(`${fig.id || fig.dataset.axis}: drawn with no frame`);
      else if (g.querySelectorAll(".fr[tabindex='0']").length !== 1) bad.push(`${fig.id}: not exactly one Tab stop`);
    }
    return bad;
  });
}

/** Every axis × cost setting of the diff controls hides exactly the rows and graphs it should. */
async function switchesWork(page: Page): Promise<string[]> {
  if ((await page.locator("#dc-axis").count()) === 0) return [];
  const axes = await page.locator("#dc-axis option").evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
  const bad: string[] = [];
  for (const axis of axes)
    for (const kind of ["", "self", "inclusive"]) {
      await page.locator("#dc-axis").selectOption(axis);
      await page.locator("#dc-kind").selectOption(kind);
      const wrong = await page.evaluate(
        ([a, k]) => {
          const rows = [...document.querySelectorAll<HTMLElement>("table.changes tbody tr")].filter((r) => r.hidden !== ((!!a && r.dataset.axis !== a) || (!!k && r.dataset.kind !== k)));
          const figs = [...document.querySelectorAll<HTMLElement>("#diff figure.flame")].filter((f) => f.hidden !== (!!a && f.dataset.axis !== a));
          return rows.length + figs.length;
        },
        [axis, kind],
      );
      if (wrong) bad.push(`axis "${axis}", cost "${kind}": ${wrong} rows or graphs not switched`);
    }
  return bad;
}

/** Function names in "Ranked changes" stay on one line (a name broken mid-identifier reads as two). */
async function namesWhole(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll("table.changes td.fn")]
      .filter((td) => {
        const r = document.createRange();
        r.selectNodeContents(td);
        return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size > 1;
      })
      .map((td) => `"${td.textContent}" wraps`),
  );
}

/** The top tables' searches filter (wired at start-up). */
async function topSearchWorks(page: Page): Promise<string[]> {
  const tops = page.locator(".top");
  const bad: string[] = [];
  for (let i = 0; i < (await tops.count()); i++) {
    const top = tops.nth(i);
    const rows = await top.locator("tbody tr").count();
    if (rows === 0) continue;
    await top.locator(".top-search").fill("no-function-is-named-this");
    if ((await top.locator("tbody tr:not([hidden])").count()) !== 0) bad.push(`top table ${i}: the search filters nothing`);
    await top.locator(".top-search").fill("");
  }
  return bad;
}

describeUnless(noChromium)("every page with its JavaScript, every axis combination", () => {
  test("no page error, no console error, no empty graph, every switch wired", async () => {
    const captures = Object.entries(ids).map(([, id]) => `/profiling/captures/${id}`);
    // A replicate's screen shows its head's diff: its switches are those the head's check already tried.
    const replicates = new Set(Object.entries(ids).filter(([k]) => k.includes("#")).map(([, id]) => `/profiling/captures/${id}`));
    const paths = [
      "/profiling",
      "/profiling?verdict=up",
      ...captures,
      "/profiling/compare",
      "/profiling/compare?workload=mixed",
      "/profiling/compare?workload=shop&b_version=1.0.0&b_env=prod&a_version=1.1.0&a_env=prod",
      "/profiling/compare?workload=pricing&b_version=1.0.0&b_env=prod&a_version=1.1.0&a_env=prod",
      "/profiling/compare?workload=mixed&b_version=1&b_env=prod&a_version=2&a_env=prod",
      "/profiling/compare?workload=mixed&b_version=2&b_env=prod&b_set=head&a_version=1&a_env=prod&a_set=head",
      "/settings",
    ];
    const problems: string[] = [];
    for (const path of paths) {
      const { page, errors } = await open(path);
      problems.push(...(await flameGraphsDrawn(page)).map((b) => `${path}: ${b}`));
      if (!replicates.has(path)) problems.push(...(await switchesWork(page)).map((b) => `${path}: ${b}`));
      problems.push(...(await topSearchWorks(page)).map((b) => `${path}: ${b}`));
      problems.push(...(await namesWhole(page)).map((b) => `${path}: ${b}`));
      await page.waitForTimeout(200);
      problems.push(...errors);
      await page.close();
    }
    const out = await browser.newPage();
    out.on("pageerror", (e) => void problems.push(`/login: ${e.message}`));
    await out.goto(`${web.url}/login`, { waitUntil: "load" });
    await out.close();
    expect(problems).toEqual([]);
  }, STEP);

  test("the Compare form offers two different versions, and comparing them at once works", async () => {
    const { page, errors } = await open("/profiling/compare?workload=pricing");
    expect(await page.locator("#b-version").inputValue()).toBe("1.0.0");
    expect(await page.locator("#a-version").inputValue()).toBe("1.1.0");
    await page.getByRole("button", { name: "Compare", exact: true }).click();
    await page.waitForURL(/b_version=/, { waitUntil: "load" });
    expect(await page.locator("#verdict").textContent()).toBe("changed ↑ regression");
    // On a phone the table scrolls sideways; its names still do not break.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await namesWhole(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, STEP);

  test("an axis with no samples is listed as such, never drawn as an empty box", async () => {
    const { page } = await open(`/profiling/captures/${ids["shop@1.1.0"]}`);
    expect(await page.locator("#diff figure.flame[data-axis=locks]").count()).toBe(0);
    expect(await page.locator("#diff ul.absent").textContent()).toMatch(/locks: absent — .*no samples/);
    expect(await page.locator(".alone figure.flame[data-axis=locks]").count()).toBe(0);
    expect(await page.locator(".alone ul.absent").textContent()).toContain("locks: no samples");
    expect(await page.locator("#diff figure.flame").count()).toBe(3);
    await page.close();
    const idle = await open(`/profiling/captures/${ids["idle@1"]}`);
    expect(await idle.page.locator(".alone figure.flame[data-axis=cpu]").count()).toBe(0);
    expect(await idle.page.locator(".alone").textContent()).toContain("cpu: no samples");
    await idle.page.close();
  }, STEP);
});
