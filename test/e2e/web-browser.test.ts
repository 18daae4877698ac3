// The app in real headless Chromium (Debian's chromium, driven by playwright-core) against a real
// `runner server` process: sign in, enable the Profiler, create and revoke a token, queue a
// capture with the form and watch it update live, open a capture with a diff, hover/search/zoom
// a frame, and read an "N of M probes" screen; then issue 19: compare any two versions, one capture
// on its own (top table, sandwich), the diff views, keyboard-only flame graphs, an in-flight screen
// updated in place, a 390-px touch viewport, and an axe-core scan of every page; a share that fell
// only because another function grew is said to be relative only; no page logs a console error.
// Screenshots are kept under .test-results/screenshots/.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import type { RecordInstrumentation } from "../../src/server/store/types.ts";
import type { Capture } from "../../src/witness/model.ts";
import { makeProgram, rng, version } from "../fixtures/profiles/synthetic.ts";
import { REPO_ROOT, runnerCommand } from "../helpers/runner-bin.ts";
import { mustAdmin } from "../helpers/runner-admin.ts";
import { pushCaptureAt } from "../unit/web-harness.ts";
import { describeUnless } from "../helpers/skip.ts";
import { CHROMIUM, CHROMIUM_FLAGS, chromiumMissing } from "../helpers/chromium.ts";

const SHOTS = join(REPO_ROOT, ".test-results/screenshots");
const PASSWORD = "a long browser test password";
// A loaded 2-core machine running the server from sources: generous, but each step still bounded.
const STEP = 150_000;
// The axe scan of six pages and the comparison (a diff computed on request) take ~2 min here.
const LONG_STEP = 2 * STEP;

const noChromium = chromiumMissing();

let dir: string;
let server: Subprocess<"ignore", "pipe", "pipe"> | undefined;
let url: string;
let store: SqliteStore;
let browser: Browser;
let page: Page;
let diffId: string;
let partialId: string;
let firstId: string;
let goneId: string;
let tinyId: string;
const AXE = readFileSync(join(REPO_ROOT, "node_modules/axe-core/axe.min.js"), "utf8");

function admin(args: string[], stdin?: string): void {
  mustAdmin(dir, args, stdin);
}

async function startServer(): Promise<string> {
  server = Bun.spawn([...runnerCommand(), "server", "--listen", "127.0.0.1:0", "--data", dir], { stdout: "pipe", stderr: "pipe" });
  const reader = server.stdout.getReader();
  let out = "";
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
    const m = /"url":"(http:\/\/[^"]+)"/.exec(out);
    if (m) {
      reader.releaseLock();
      return m[1]!;
    }
  }
  throw new Error(`runner server did not start: ${out}`);
}

function push(org: string, req: { workload: string; version: string; kind?: "head" | "replicate" }, c: Capture, instrumentation: RecordInstrumentation, at: number): Promise<string> {
  return pushCaptureAt(store, org, { env: "prod", ...req }, c, instrumentation, at, "release-pipeline");
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true, timeout: 60_000 });
}

beforeAll(async () => {
  if (noChromium) return;
  mkdirSync(SHOTS, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), "runner-web-browser-"));
  admin(["org", "create", "acme"]);
  admin(["user", "create", "acme", "owner@acme.test", "--role", "owner", "--password-stdin"], `${PASSWORD}\n`);
  url = await startServer();
  store = new SqliteStore(join(dir, "runner.db"));
  // Two versions with a real regression of `target`, 3 captures each; the head of v2 is partial.
  const p = makeProgram({ seed: 11, stacks: 150, leaves: 50, cv: 0.01, targetShare: 0.02 });
  const r = rng(5);
  const before = version(p, r, 3, { samples: 100_000 });
  const after = version(p, r, 3, { samples: 100_000, change: { target: 1.5 } });
  const full = { probes_requested: 1, probes_attached: 1, missing: [] };
  const partial = {
    probes_requested: 3,
    probes_attached: 1,
    missing: [
      { probe: "offcpu", reason: "tracefs not mounted at /sys/kernel/tracing" },
      { probe: "syscalls", reason: "opening /proc/4242/ns/mnt: permission denied" },
    ],
  };
  after[0]!.missing = partial.missing.map((m) => ({ axis: m.probe, reason: m.reason }));
  let t = Date.now() - 3_600_000;
  firstId = await push("acme", { workload: "shop", version: "1.0" }, before[0]!, full, (t += 1000));
  for (const c of before.slice(1)) await push("acme", { workload: "shop", version: "1.0", kind: "replicate" }, c, full, (t += 1000));
  diffId = partialId = await push("acme", { workload: "shop", version: "1.1" }, after[0]!, partial, (t += 1000));
  for (const c of after.slice(1)) await push("acme", { workload: "shop", version: "1.1", kind: "replicate" }, c, full, (t += 1000));
  // 1.2 drops `target` altogether: an improvement, and a path that vanished.
  const gone = version(p, r, 2, { samples: 100_000, change: { target: 0 } });
  goneId = await push("acme", { workload: "shop", version: "1.2" }, gone[0]!, full, (t += 1000));
  await push("acme", { workload: "shop", version: "1.2", kind: "replicate" }, gone[1]!, full, (t += 1000));
  // Four leaf functions (shares compared: too few for median-ratio); in 2 target doubles and
  // leaf_1 halves, the others do the same work: their shares fall, per second they do not.
  const tiny = makeProgram({ seed: 3, stacks: 4, leaves: 4, cv: 0.01, targetShare: 0.3, depth: 3 });
  const tr = rng(7);
  const tinyBefore = version(tiny, tr, 3, { samples: 50_000 });
  const tinyAfter = version(tiny, tr, 3, { samples: 50_000, change: { target: 2, leaf_1: 0.5 } });
  for (const [i, c] of tinyBefore.entries()) await push("acme", { workload: "tiny", version: "1", kind: i ? "replicate" : "head" }, c, full, (t += 1000));
  for (const [i, c] of tinyAfter.entries()) {
    const id = await push("acme", { workload: "tiny", version: "2", kind: i ? "replicate" : "head" }, c, full, (t += 1000));
    if (i === 0) tinyId = id;
  }
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(60_000);
  // Revoke and disable ask first: the test answers yes.
  page.on("dialog", (d) => void d.accept());
}, 120_000);

afterAll(async () => {
  await browser?.close();
  server?.kill("SIGKILL");
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describeUnless(noChromium)("the app in Chromium", () => {
  test("sign in", async () => {
    await page.goto(`${url}/profiling`, { waitUntil: "domcontentloaded" });
    expect(new URL(page.url()).pathname).toBe("/login");
    await page.getByLabel("Organization").fill("acme");
    await page.getByLabel("Email").fill("owner@acme.test");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/profiling$/, { waitUntil: "domcontentloaded" });
    await expect(page.getByRole("heading", { name: "Profiling", level: 1 }).isVisible()).resolves.toBe(true);
    expect(await page.locator("header .who").textContent()).toBe("owner@acme.test · owner · acme");
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === "runner_session")).toMatchObject({ httpOnly: true, sameSite: "Strict" });
    await shot("01-profiling-signed-in");
  }, STEP);

  test("enable the Profiler", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Settings" }).click();
    expect(await page.locator("#profiler-state").textContent()).toBe("disabled");
    await page.getByRole("button", { name: "Enable the Profiler" }).click();
    await page.waitForURL(/\/settings\?done=/, { waitUntil: "domcontentloaded" });
    expect(await page.locator("#profiler-state").textContent()).toBe("enabled");
    expect(await page.getByRole("status").first().textContent()).toContain("The Profiler is enabled.");
    await shot("02-settings-profiler-enabled");
  }, STEP);

  test("create a token (shown once, copy button), then revoke it", async () => {
    // Settings also has Read Tokens, with a name field of its own: the capture tokens' section.
    await page.getByRole("region", { name: "Profiler Capture Tokens" }).getByLabel("Token name").fill("browser-ci");
    await page.getByRole("button", { name: "Create token" }).click();
    const value = await page.getByLabel("Token value").inputValue();
    expect(value).toMatch(/^rpcap_[A-Za-z0-9]+$/);
    await page.getByRole("button", { name: "Copy" }).click();
    await page.locator(".copied").filter({ hasText: "Copied" }).waitFor();
    await shot("03-settings-token-created");
    // It works against the API until revoked.
    const call = () => fetch(`${url}/api/profiling/captures`, { method: "POST", headers: { authorization: `Bearer ${value}`, "content-type": "application/json" }, body: JSON.stringify({ workload: "api", version: "9" }) });
    expect((await call()).status).toBe(202);
    await page.getByRole("button", { name: "Revoke token browser-ci" }).click();
    await page.waitForURL(/\/settings\?done=/, { waitUntil: "domcontentloaded" });
    expect(await page.locator("#tokens").textContent()).toMatch(/browser-ci.*revoked/);
    expect(await page.getByLabel("Token value").count()).toBe(0); // never shown again
    expect((await call()).status).toBe(401);
    await shot("04-settings-token-revoked");
  }, STEP);

  test("queue a capture with the form; its row updates live when the outcome arrives", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Profiling" }).click();
    const form = page.locator("#capture-form");
    expect(await form.locator("input:not([type=hidden])").count()).toBe(3);
    await page.getByLabel("Process").fill("checkout");
    await page.locator("#version").fill("2.0.0");
    await page.getByLabel(/Environment/).first().fill("staging");
    await page.getByRole("button", { name: "Queue capture" }).click();
    await page.waitForURL(/queued=/, { waitUntil: "domcontentloaded" });
    const id = new URL(page.url()).searchParams.get("queued")!;
    const row = page.locator("#records tr", { has: page.locator(`a[href="/profiling/captures/${id}"]`) });
    expect(await row.textContent()).toContain("owner@acme.test");
    expect(await row.locator(".state").textContent()).toBe("queued");
    await shot("05-profiling-queued");
    // The Profiler side finishes it; the page shows it without a reload.
    await store.markCaptureRunning(id);
    await store.completeCapture(id, { outcome: "failed", reason: "target not running on any node" });
    await row.locator(".state", { hasText: "failed" }).waitFor({ timeout: 15_000 });
    expect(await row.textContent()).toContain("target not running on any node");
    await shot("06-profiling-live-update");
  }, STEP);

  test("open a capture with a diff; hover, search and zoom a frame", async () => {
    await page.goto(`${url}/profiling/captures/${diffId}`, { waitUntil: "load" });
    expect(await page.locator("#verdict").textContent()).toBe("changed ↑ regression");
    const frame = page.locator("#graph-cpu .fr", { hasText: /^target$/ }).first();
    await frame.hover();
    const tip = page.locator("#fig-cpu .flame-tip");
    await tip.waitFor({ state: "visible" });
    const text = (await tip.textContent())!;
    expect(text).toMatch(/^target/);
    expect(text).toMatch(/before \d+\.\d\d% · after \d+\.\d\d% of cpu/);
    expect(text).toMatch(/change \+\d+\.\d%, 95% interval \[[-+]\d+\.\d%, \+\d+\.\d%\] — CHANGED/);
    await shot("07-capture-hover");
    await page.locator("#search-cpu").fill("target");
    await expect(page.locator("#fig-cpu .flame-match").textContent()).resolves.toMatch(/^\d+ matching frames?$/);
    expect(await page.locator("#graph-cpu .fr.match").count()).toBeGreaterThan(0);
    await shot("08-capture-search");
    await page.locator("#search-cpu").fill("");
    // Zoom with the keyboard: focus the parent of target and press Enter; it becomes full width.
    const parent = page.locator("#graph-cpu .fr", { hasText: /^fn_4_0$/ }).first();
    await parent.focus();
    await page.keyboard.press("Enter");
    const graphBox = (await page.locator("#graph-cpu").boundingBox())!;
    const zoomed = page.locator("#graph-cpu .fr", { hasText: /^fn_4_0$/ }).first();
    expect((await zoomed.boundingBox())!.width).toBeGreaterThan(graphBox.width * 0.95);
    await shot("09-capture-zoomed");
    await page.locator("#fig-cpu .flame-reset").click();
    expect(await page.locator(".changes tbody tr.flag-up").count()).toBeGreaterThan(0);
    expect(await page.getByRole("link", { name: /pprof/ }).count()).toBe(1);
    expect(await page.getByRole("link", { name: /The diff \(JSON/ }).count()).toBe(1);
  }, LONG_STEP);

  test('an "N of M probes" screen names what did not attach and why', async () => {
    await page.goto(`${url}/profiling/captures/${partialId}`, { waitUntil: "domcontentloaded" });
    expect(await page.locator("#instrumentation").textContent()).toBe("1 of 3 probes");
    const missing = await page.locator("ul.missing").textContent();
    expect(missing).toContain("offcpu did not attach: tracefs not mounted");
    expect(missing).toContain("syscalls did not attach: opening /proc/4242/ns/mnt: permission denied");
    expect(missing).toContain("AppArmor profile");
    expect(await page.locator("ul.absent").textContent()).toContain("offcpu: absent");
    await shot("10-capture-n-of-m-probes");
  }, STEP);
  test("compare 1.2 with 1.0 from the capture screen's pickers (not the automatic 1.1)", async () => {
    await page.goto(`${url}/profiling/captures/${goneId}`, { waitUntil: "load" });
    expect(await page.locator("#verdict").textContent()).toMatch(/^changed ↓ improvement|^changed/);
    await page.getByText("Compare with another version, environment or set of captures").click();
    await page.locator("#b-version").selectOption("1.0");
    await page.getByRole("button", { name: "Compare", exact: true }).click();
    await page.waitForURL(/\/profiling\/compare\?/, { waitUntil: "load" });
    expect(await page.locator("#baseline").textContent()).toMatch(/^Baseline: version 1\.0 · prod \(head, replicate, replicate\); comparison: version 1\.2 · prod/);
    // target is gone in 1.2: an improvement, told in words and drawn hatched where it used to be.
    expect(await page.locator("#verdict").textContent()).toContain("improvement");
    const row = page.locator("table.changes tbody tr", { has: page.locator("td.fn", { hasText: /^target$/ }) }).first();
    expect(await row.locator(".chg").textContent()).toBe("↓ improvement");
    expect(await row.locator("td.words").textContent()).toMatch(/^Improvement: shrank by 100\.0% \(adjusted p /);
    expect(await page.locator("#graph-cpu .fr.gone", { hasText: /^target$/ }).count()).toBeGreaterThan(0);
    await shot("11-compare-picked");
    // Views: side by side draws a second graph; axis and cost filters hide what is not asked for.
    await page.locator("#view-cpu").selectOption("split");
    await page.locator("#graph-cpu-after .fr").first().waitFor();
    expect(await page.locator("#graph-cpu-after .fr.gone").count()).toBe(0);
    await shot("12-compare-side-by-side");
    await page.locator("#dc-kind").selectOption("self");
    expect(await page.locator("table.changes tbody tr[data-kind=inclusive]:visible").count()).toBe(0);
    expect(await page.locator("table.changes tbody tr[data-kind=self]:visible").count()).toBeGreaterThan(0);
    const dl = page.waitForEvent("download");
    await page.getByRole("link", { name: "The diff (JSON, every tested function)" }).click();
    const file = await dl;
    expect(file.suggestedFilename()).toBe("shop-1.0-vs-1.2.diff.json");
  }, LONG_STEP);

  test("one capture on its own: flame graph, sortable and searchable top table, sandwich", async () => {
    await page.goto(`${url}/profiling/captures/${firstId}`, { waitUntil: "load" });
    expect(await page.locator("#verdict").textContent()).toBe("no baseline");
    expect(await page.locator("#graph-own-cpu .fr").count()).toBeGreaterThan(20);
    const cap = (await page.locator("#fig-own-cpu figcaption").textContent())!;
    expect(cap).toMatch(/samples · [\d.]+ CPU-s\/s over [\d.]+ s measured/);
    const table = page.locator("#top-own-cpu-t");
    await table.getByRole("button", { name: "Total" }).click();
    expect(await table.locator("tbody tr:first-child td.fn").textContent()).toBe("main");
    expect(await table.locator("th", { hasText: "Total" }).getAttribute("aria-sort")).toBe("descending");
    await page.getByLabel("Find function").fill("target");
    expect(await table.locator("tbody tr:visible").count()).toBe(1);
    await table.getByRole("button", { name: "Sandwich view of target" }).click();
    const sw = page.locator(".sandwich").first();
    await sw.locator("h4").waitFor();
    expect(await sw.locator("h4").textContent()).toMatch(/^Sandwich of target \(cpu\): \d+\.\d\d% of the axis$/);
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("H4");
    // Callers read upwards from target: its parents fn_4_0 / fn_4_1 are right above it.
    expect(await sw.locator("[id$='-callers'] .fr", { hasText: /^fn_4_[01]$/ }).count()).toBeGreaterThan(0);
    expect(await sw.locator("[id$='-callees'] .fr", { hasText: /^target$/ }).count()).toBe(1);
    await shot("13-capture-alone-sandwich");
  }, STEP);

  test("keyboard only: one Tab stop per flame graph, arrow keys, focus kept on zoom", async () => {
    await page.goto(`${url}/profiling/captures/${diffId}`, { waitUntil: "load" });
    expect(await page.locator("#graph-cpu .fr[tabindex='0']").count()).toBe(1);
    await page.locator("#search-cpu").focus();
    // Tab order from search: view select, reset button, then the graph (one stop), then out of it.
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    const active = () => page.evaluate(() => ({ cls: document.activeElement?.className, text: document.activeElement?.textContent, graph: document.activeElement?.parentElement?.id }));
    expect(await active()).toMatchObject({ cls: "fr", text: "all", graph: "graph-cpu" });
    await page.keyboard.press("ArrowDown");
    expect((await active()).text).toBe("main");
    await page.keyboard.press("ArrowDown");
    const first = (await active()).text!;
    await page.keyboard.press("ArrowRight");
    const second = (await active()).text!;
    expect(second).not.toBe(first);
    await page.keyboard.press("ArrowLeft");
    expect((await active()).text).toBe(first);
    await page.keyboard.press("Enter");
    expect(await active()).toMatchObject({ cls: "fr", text: first, graph: "graph-cpu" });
    expect(await page.locator("#graph-cpu .fr[tabindex='0']").count()).toBe(1);
    await page.keyboard.press("Escape");
    expect(await active()).toMatchObject({ cls: "fr", text: "all" });
    await page.keyboard.press("Tab");
    expect((await active()).graph).not.toBe("graph-cpu");
  }, STEP);

  test("a capture in flight updates in place: no reload, focus kept", async () => {
    const org = (await store.getOrg("acme"))!;
    const q = await store.queueCapture(org.id, "owner@acme.test", { workload: "shop", version: "1.3", env: "prod", kind: "head", durationSec: 60, warmupSec: 5 }, { limit: 1e9, windowMs: 1, now: Date.now() });
    const id = (q as { requestId: string }).requestId;
    await page.goto(`${url}/profiling/captures/${id}`, { waitUntil: "load" });
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    await page.locator("#back").focus();
    await store.markCaptureRunning(id);
    await store.completeCapture(id, { outcome: "failed", reason: "target not running on any node" });
    await page.locator("#state .state", { hasText: "failed" }).waitFor({ timeout: 20_000 });
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("back");
  }, STEP);

  test("the list: verdict column and filter", async () => {
    await page.goto(`${url}/profiling`, { waitUntil: "load" });
    const row = page.locator("#records tr", { has: page.locator(`a[href="/profiling/captures/${diffId}"]`) });
    expect(await row.locator("td[data-verdict]").textContent()).toMatch(/^changed ↑ regression/);
    await page.locator("#f-verdict").selectOption("down");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/verdict=down/, { waitUntil: "load" });
    expect(await page.locator(`#records a[href="/profiling/captures/${goneId}"]`).count()).toBe(1);
    expect(await page.locator(`#records a[href="/profiling/captures/${diffId}"]`).count()).toBe(0);
    await shot("14-profiling-verdicts");
  }, STEP);

  test("390 px with touch: no sideways scroll, a tap explains a frame", async () => {
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, storageState: await page.context().storageState() });
    const m = await ctx.newPage();
    m.setDefaultTimeout(60_000);
    try {
      for (const path of ["/profiling", `/profiling/captures/${diffId}`, `/profiling/captures/${firstId}`, `/profiling/compare?workload=shop&b_version=1.0&b_env=prod&a_version=1.2&a_env=prod`, "/settings"]) {
        await m.goto(url + path, { waitUntil: "load" });
        const wide = await m.evaluate(() => {
          const over = [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > 391 && !e.closest(".scroll")).slice(0, 3);
          return { width: document.documentElement.scrollWidth, over: over.map((e) => `${e.tagName}.${e.className}#${e.id}`) };
        });
        expect({ path, wide }).toEqual({ path, wide: { width: 390, over: [] } });
      }
      await m.goto(`${url}/profiling/captures/${diffId}`, { waitUntil: "load" });
      await m.locator("#graph-cpu .fr", { hasText: /^main$/ }).first().tap();
      const tip = m.locator("#fig-cpu .flame-tip");
      await tip.waitFor({ state: "visible" });
      expect(await tip.textContent()).toMatch(/^main\nbefore/);
      await m.screenshot({ path: join(SHOTS, "15-capture-390px.png"), fullPage: false });
      // Wide tables scroll inside their box rather than squeezing headers to a letter per line.
      const th = await m.locator("table.changes thead th").first().boundingBox();
      expect(th!.width).toBeGreaterThan(40);
    } finally {
      await ctx.close();
    }
  }, STEP);

  test("a share that fell only because another function grew says so beside its flag and near the verdict", async () => {
    await page.goto(`${url}/profiling/captures/${tinyId}`, { waitUntil: "load" });
    expect(await page.locator("#verdict").textContent()).toBe("changed ↑↓ regression and improvement");
    await expect(page.locator("#relative-falls").textContent()).resolves.toMatch(/^\d+ of the \d+ flagged falls \(↓\) are relative only: when one function grows, the others' shares fall/);
    const row = page.locator("table.changes tbody tr[data-kind=self]", { has: page.locator("td.fn", { hasText: /^leaf_2$/ }) });
    expect(await row.locator(".chg").textContent()).toBe("↓ improvement");
    expect(await row.locator("td.words .relative").textContent()).toMatch(/^Relative only: its share fell because the others grew; per second: unchanged within noise/);
    expect(await row.locator("td.words .relative").isVisible()).toBe(true);
    await shot("16-capture-relative-fall");
  }, STEP);

  test("no console error on any page; each links an icon that loads, and /favicon.ico is one too", async () => {
    const pages = ["/profiling", `/profiling/captures/${diffId}`, `/profiling/captures/${firstId}`, `/profiling/captures/${partialId}`, "/profiling/compare?workload=shop&b_version=1.0&b_env=prod&a_version=1.2&a_env=prod", "/settings"];
    const errors: string[] = [];
    const icons: Record<string, string> = {};
    // An image the browser fetches and decodes, as it does a tab's icon (whose own request the
    // browser process makes, out of Playwright's sight); a 404 here is logged as a console error.
    const load = (p: Page, src: string | null) =>
      p.evaluate((s) => {
        const href = s ?? document.querySelector<HTMLLinkElement>('link[rel="icon"]')?.href;
        if (!href) return "no icon linked";
        return new Promise<string>((done) => {
          const img = new Image();
          img.onload = () => done(img.naturalWidth > 0 ? "ok" : "empty");
          img.onerror = () => done("did not load");
          img.src = href;
        });
      }, src);
    const watch = (p: Page) => {
      p.on("console", (m) => void (m.type() === "error" && errors.push(`${new URL(p.url()).pathname}: ${m.text()}`)));
      p.on("pageerror", (e) => void errors.push(`${new URL(p.url()).pathname}: ${e.message}`));
    };
    const signedOut = await browser.newContext();
    const signedIn = await browser.newContext({ storageState: await page.context().storageState() });
    try {
      const out = await signedOut.newPage();
      watch(out);
      await out.goto(`${url}/login`, { waitUntil: "load" });
      icons["/login"] = await load(out, null);
      // Where no page links an icon (a download, a plain-text answer) a browser asks /favicon.ico.
      icons["/favicon.ico"] = await load(out, "/favicon.ico");
      const p = await signedIn.newPage();
      p.setDefaultTimeout(60_000);
      watch(p);
      for (const path of pages) {
        await p.goto(url + path, { waitUntil: "load" });
        icons[path] = await load(p, null);
      }
      await p.waitForTimeout(500); // a late error (live refresh) still counts
      expect({ errors, icons }).toEqual({ errors: [], icons: Object.fromEntries(["/login", "/favicon.ico", ...pages].map((k) => [k, "ok"])) });
    } finally {
      await signedIn.close();
      await signedOut.close();
    }
  }, LONG_STEP);

  test("axe-core finds no serious or critical violation on any page", async () => {
    const pages = ["/profiling", `/profiling/captures/${diffId}`, `/profiling/captures/${firstId}`, `/profiling/captures/${partialId}`, `/profiling/captures/${tinyId}`, "/profiling/compare?workload=shop&b_version=1.0&b_env=prod&a_version=1.2&a_env=prod", "/settings"];
    const found: string[] = [];
    for (const path of pages) {
      await page.goto(url + path, { waitUntil: "load" });
      // Through the DevTools protocol, so the app's CSP (no inline scripts) stays as it is.
      const v = (await page.evaluate(`${AXE};axe.run(document, { resultTypes: ["violations"] }).then(r => r.violations.map(x => ({ id: x.id, impact: x.impact, nodes: x.nodes.map(n => n.target.join(" ")).slice(0, 3) })))`)) as Array<{ id: string; impact: string; nodes: string[] }>;
      for (const x of v) if (x.impact === "serious" || x.impact === "critical") found.push(`${path}: ${x.id} (${x.impact}) ${x.nodes.join(", ")}`);
    }
    const signedOut = await browser.newPage();
    await signedOut.goto(`${url}/login`, { waitUntil: "load" });
    const lv = (await signedOut.evaluate(`${AXE};axe.run().then(r => r.violations.filter(x => x.impact === "serious" || x.impact === "critical").map(x => x.id))`)) as string[];
    await signedOut.close();
    for (const id of lv) found.push(`/login: ${id}`);
    expect(found).toEqual([]);
  }, LONG_STEP);
});
