// The app in real headless Chromium (Debian's chromium, driven by playwright-core) against a real
// `runner server` process: sign in, enable the Profiler, create and revoke a token, queue a
// capture with the form and watch it update live, open a capture with a diff, hover/search/zoom
// a frame, and read an "N of M probes" screen. Screenshots are kept under .test-results/screenshots/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { SqliteStore } from "../../src/server/store/sqlite/sqlite-store.ts";
import type { Instrumentation } from "../../src/server/store/types.ts";
import type { Capture } from "../../src/witness/model.ts";
import { makeProgram, rng, version } from "../fixtures/profiles/synthetic.ts";
import { REPO_ROOT, runnerCommand } from "../helpers/runner-bin.ts";
import { mustAdmin } from "../helpers/runner-admin.ts";
import { pushCaptureAt } from "../unit/web-harness.ts";

const CHROMIUM = process.env.RUNNER_CHROMIUM ?? "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];
const SHOTS = join(REPO_ROOT, ".test-results/screenshots");
const PASSWORD = "a long browser test password";
// A loaded 2-core machine running the server from sources: generous, but each step still bounded.
const STEP = 150_000;

// CI installs chromium (.ci/run); elsewhere the browser tests skip unless RUNNER_REQUIRE_LIVE=1.
const available = existsSync(CHROMIUM);
if (!available && process.env.RUNNER_REQUIRE_LIVE === "1") throw new Error(`RUNNER_REQUIRE_LIVE=1 but ${CHROMIUM} is missing (apt-get install chromium)`);

let dir: string;
let server: Subprocess<"ignore", "pipe", "pipe"> | undefined;
let url: string;
let store: SqliteStore;
let browser: Browser;
let page: Page;
let diffId: string;
let partialId: string;

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

function push(org: string, req: { workload: string; version: string; kind?: "head" | "replicate" }, c: Capture, instrumentation: Instrumentation, at: number): Promise<string> {
  return pushCaptureAt(store, org, { env: "prod", ...req }, c, instrumentation, at, "release-pipeline");
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true, timeout: 60_000 });
}

beforeAll(async () => {
  if (!available) return;
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
  await push("acme", { workload: "shop", version: "1.0" }, before[0]!, full, (t += 1000));
  for (const c of before.slice(1)) await push("acme", { workload: "shop", version: "1.0", kind: "replicate" }, c, full, (t += 1000));
  diffId = partialId = await push("acme", { workload: "shop", version: "1.1" }, after[0]!, partial, (t += 1000));
  for (const c of after.slice(1)) await push("acme", { workload: "shop", version: "1.1", kind: "replicate" }, c, full, (t += 1000));
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(60_000);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  server?.kill("SIGKILL");
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe.skipIf(!available)("the app in Chromium", () => {
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
    await page.getByLabel("Token name").fill("browser-ci");
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
    await page.getByLabel("Version").fill("2.0.0");
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
    expect(await page.locator("#verdict").textContent()).toBe("changed");
    const frame = page.locator("#graph-cpu .fr", { hasText: /^target$/ }).first();
    await frame.hover();
    const tip = page.locator("figure.flame .flame-tip");
    await tip.waitFor({ state: "visible" });
    const text = (await tip.textContent())!;
    expect(text).toMatch(/^target/);
    expect(text).toMatch(/before \d+\.\d\d% · after \d+\.\d\d% of cpu/);
    expect(text).toMatch(/change \+\d+\.\d%, 95% interval \[[-+]\d+\.\d%, \+\d+\.\d%\] — CHANGED/);
    await shot("07-capture-hover");
    await page.getByLabel("Search").fill("target");
    await expect(page.locator(".flame-match").textContent()).resolves.toMatch(/^\d+ matching frames?$/);
    expect(await page.locator("#graph-cpu .fr.match").count()).toBeGreaterThan(0);
    await shot("08-capture-search");
    await page.getByLabel("Search").fill("");
    // Zoom with the keyboard: focus the parent of target and press Enter; it becomes full width.
    const parent = page.locator("#graph-cpu .fr", { hasText: /^fn_4_0$/ }).first();
    await parent.focus();
    await page.keyboard.press("Enter");
    const graphBox = (await page.locator("#graph-cpu").boundingBox())!;
    const zoomed = page.locator("#graph-cpu .fr", { hasText: /^fn_4_0$/ }).first();
    expect((await zoomed.boundingBox())!.width).toBeGreaterThan(graphBox.width * 0.95);
    await shot("09-capture-zoomed");
    await page.getByRole("button", { name: "Reset zoom" }).click();
    expect(await page.locator(".changes tbody tr.flag-up").count()).toBeGreaterThan(0);
    expect(await page.getByRole("link", { name: /pprof/ }).count()).toBe(1);
  }, STEP);

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
});
