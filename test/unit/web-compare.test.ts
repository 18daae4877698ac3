// Compare anything with anything (issue 19): the pickers' query diffs the chosen sides with
// witness's own diff (the automatic choice gives the stored diff's statistics exactly), any two
// versions or envs, the head alone or a chosen set; downloads of both sides merged and of the
// diff; the Profiling list's verdict column, its filter and the per-version summary; queueing a
// replicate from a head's screen; and the small defects (reason once, token-name pattern).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import type { DiffResult } from "../../src/witness/diff.ts";
import { parseFolded } from "../../src/witness/folded.ts";
import { axisTotal } from "../../src/witness/model.ts";
import { parseProfile } from "../../src/witness/parse.ts";
import { makeProgram, rng, version } from "../fixtures/profiles/synthetic.ts";
import { startWeb, type Client, type Web } from "./web-harness.ts";

setDefaultTimeout(60_000);
let web: Web;
let member: Client;
const ids: Record<string, string[]> = {};
const full = { probes_requested: 1, probes_attached: 1, missing: [] };

beforeAll(async () => {
  web = await startWeb();
  member = await web.member("acme", "m@acme.test", "member");
  const p = makeProgram({ seed: 11, stacks: 150, leaves: 50, cv: 0.01, targetShare: 0.02 });
  const r = rng(5);
  // 1.0.0 → 1.1.0 regresses `target`; 1.2.0 puts it back (an improvement against 1.1.0).
  const versions: Array<[string, string, number]> = [["1.0.0", "prod", 1], ["1.1.0", "prod", 1.5], ["1.2.0", "prod", 1], ["1.2.0", "staging", 1]];
  for (const [v, env, k] of versions) {
    const caps = version(p, r, 3, { samples: 100_000, change: k === 1 ? undefined : { target: k } });
    const key = `${v}/${env}`;
    ids[key] = [await web.pushCapture("acme", { workload: "shop", version: v, env }, caps[0]!, full)];
    for (const c of caps.slice(1)) ids[key]!.push(await web.pushCapture("acme", { workload: "shop", version: v, env, kind: "replicate" }, c, full));
  }
});
afterAll(() => web.stop());

const q = (o: Record<string, string>) => new URLSearchParams({ workload: "shop", b_env: "prod", a_env: "prod", b_set: "all", a_set: "all", ...o }).toString();

async function jsonOf(path: string): Promise<DiffResult> {
  const res = await member.get(path);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename=".+\.diff\.json"$/);
  return res.json() as Promise<DiffResult>;
}

describe("compare anything with anything", () => {
  test("the automatic pair through the pickers gives exactly the stored diff's statistics", async () => {
    const stored = await jsonOf(`/profiling/captures/${ids["1.1.0/prod"]![0]}/download/diff.json`);
    const picked = await jsonOf(`/profiling/compare/download/diff.json?${q({ b_version: "1.0.0", a_version: "1.1.0" })}`);
    expect(picked.verdict).toBe(stored.verdict);
    expect(picked.changes).toEqual(stored.changes);
    expect(picked.axes_compared).toEqual(stored.axes_compared);
  });

  test("1.2.0 against 1.0.0 (not the automatic baseline), and staging against production", async () => {
    const page = await (await member.get(`/profiling/compare?${q({ b_version: "1.0.0", a_version: "1.2.0" })}`)).text();
    expect(page).toContain('id="verdict"');
    expect(page).toMatch(/Baseline: version 1\.0\.0 · prod \(<a href="\/profiling\/captures\/[^"]+">head<\/a>, <a[^>]+>replicate<\/a>, <a[^>]+>replicate<\/a>\); comparison: version 1\.2\.0 · prod/);
    const back = await jsonOf(`/profiling/compare/download/diff.json?${q({ b_version: "1.1.0", a_version: "1.2.0" })}`);
    const target = back.changes.find((c) => c.function === "target" && c.flagged)!;
    expect(target.direction).toBe("down");
    const envs = await (await member.get(`/profiling/compare?${q({ b_version: "1.2.0", a_version: "1.2.0", a_env: "staging" })}`)).text();
    expect(envs).toContain("comparison: version 1.2.0 · staging");
    expect(envs).toMatch(/<span class="verdict v-(unchanged|insufficient|changed)/);
  });

  test("the head alone, or a chosen set of captures; mistakes are said on the page", async () => {
    const head = await jsonOf(`/profiling/compare/download/diff.json?${q({ b_version: "1.0.0", a_version: "1.1.0", b_set: "head", a_set: "head" })}`);
    expect(head.captures.before.length).toBe(1);
    expect(head.captures.after.length).toBe(1);
    const set = await jsonOf(`/profiling/compare/download/diff.json?${q({ b_version: "1.0.0", a_version: "1.1.0", b_ids: ids["1.0.0/prod"]!.slice(1).join(",") })}`);
    expect(set.captures.before.length).toBe(2);
    expect(set.captures.after.length).toBe(3);
    const wrong = await member.get(`/profiling/compare?${q({ b_version: "1.0.0", a_version: "1.1.0", b_ids: ids["1.1.0/prod"]![0]! })}`);
    expect(wrong.status).toBe(422);
    expect(await wrong.text()).toContain(`${ids["1.1.0/prod"]![0]} is not a pushed capture of version 1.0.0 of shop (prod)`);
    const none = await member.get(`/profiling/compare?${q({ b_version: "9.9", a_version: "1.1.0" })}`);
    expect(none.status).toBe(422);
    expect(await none.text()).toContain("version 9.9 of shop (prod) has no pushed capture");
  });

  test("the capture screen offers the pickers, preset to the automatic choice", async () => {
    const html = await (await member.get(`/profiling/captures/${ids["1.1.0/prod"]![0]}`)).text();
    expect(html).toContain('<form method="get" action="/profiling/compare"');
    expect(html).toMatch(/<select id="b-version" name="b_version">[^]*?<option value="1\.0\.0" selected>/);
    expect(html).toMatch(/<select id="a-version" name="a_version">[^]*?<option value="1\.1\.0" selected>/);
    expect(html).toContain("chosen automatically as the latest earlier version");
    // The sentence is said once (it used to repeat "compared with").
    expect(html.match(/compared with/gi) ?? []).toHaveLength(0);
    expect(html).not.toContain("downloads of witness");
  });
});

describe("downloads", () => {
  test("each side merged per axis: the values of its captures add up", async () => {
    const res = await member.get(`/profiling/compare/download/before?${q({ b_version: "1.0.0", a_version: "1.1.0" })}&axis=cpu`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="shop-1.0.0-prod-merged.cpu.folded"');
    const merged = parseFolded(await res.text(), "cpu");
    let sum = 0;
    for (const id of ids["1.0.0/prod"]!) sum += axisTotal(parseProfile(gunzipSync((await web.store.getProfile(id))!), "x").axes.cpu!);
    expect(axisTotal(merged.axes.cpu!)).toBe(sum);
    expect((await member.get(`/profiling/compare/download/after?${q({ b_version: "1.0.0", a_version: "1.1.0" })}&axis=offcpu`)).status).toBe(404);
    const screen = await (await member.get(`/profiling/captures/${ids["1.1.0/prod"]![0]}`)).text();
    expect(screen).toContain("Baseline 1.0.0, head and replicates merged: folded stacks, cpu axis");
    expect(screen).toContain("Version 1.1.0, head and replicates merged: folded stacks, cpu axis");
    expect(screen).toContain("The diff (JSON, every tested function)");
  });
});

describe("the Profiling list", () => {
  test("a verdict column, a verdict filter and a per-version summary", async () => {
    const html = await (await member.get("/profiling")).text();
    expect(html).toContain('<th scope="col">Verdict</th>');
    const row = (id: string) => new RegExp(`<a href="/profiling/captures/${id}">[^]*?</tr>`).exec(html)![0];
    expect(row(ids["1.1.0/prod"]![0]!)).toContain('data-verdict="up"');
    expect(row(ids["1.1.0/prod"]![0]!)).toContain("changed ↑ regression");
    expect(row(ids["1.2.0/prod"]![0]!)).toContain('data-verdict="down"');
    expect(row(ids["1.0.0/prod"]![0]!)).toContain("no baseline");
    expect(html).toContain('<h2 id="sum-h">Latest versions</h2>');
    const ups = await (await member.get("/profiling?verdict=up")).text();
    const listed = [...ups.matchAll(/<tbody id="records"[^>]*>([^]*?)<\/tbody>/g)][0]![1]!;
    expect(listed).toContain(ids["1.1.0/prod"]![0]!);
    expect(listed).not.toContain(ids["1.2.0/prod"]![0]!);
    expect(listed).not.toContain(ids["1.0.0/prod"]![0]!);
  });

  test("a head's screen queues a replicate of its version (the request form keeps its three fields)", async () => {
    const html = await (await member.get(`/profiling/captures/${ids["1.2.0/staging"]![0]}`)).text();
    expect(html).toContain("Queue a replicate of 1.2.0");
    await web.store.setProfilerEnabled("acme", true);
    const res = await member.post("/profiling/captures", { process: "shop", version: "1.2.0", environment: "staging", kind: "replicate" });
    expect(res.status).toBe(303);
    const id = new URL(res.headers.get("location")!, web.url).searchParams.get("queued")!;
    expect(await web.store.getCapture(id)).toMatchObject({ kind: "replicate", version: "1.2.0", env: "staging", requester: "m@acme.test", status: "queued" });
    // Replicate replicates are not a thing the request form offers: its inputs stay process, version, environment.
    const list = await (await member.get("/profiling")).text();
    const form = /<form method="post" action="\/profiling\/captures" class="row" id="capture-form">[^]*?<\/form>/.exec(list)![0];
    expect([...form.matchAll(/<input (?!type="hidden")[^>]*name="(\w+)"/g)].map((m) => m[1])).toEqual(["process", "version", "environment"]);
  });
});

describe("small defects", () => {
  test("the token-name pattern compiles as Chromium compiles it (v flag); revoke and disable ask first", async () => {
    const owner = await web.member("acme", "o@acme.test", "owner");
    await owner.post("/settings/tokens", { name: "ci-1" });
    const html = await (await owner.get("/settings")).text();
    const pattern = /id="token-name"[^>]*pattern="([^"]+)"/.exec(html)![1]!.replace(/&#39;/g, "'");
    const re = new RegExp(`^(?:${pattern})$`, "v");
    expect(re.test("ci-1.a_b")).toBe(true);
    expect(re.test("has space")).toBe(false);
    expect(html).toMatch(/<form method="post" action="\/settings\/tokens\/revoke" class="inline" data-confirm="Revoke capture token ci-1\?/);
    expect(html).toMatch(/<form method="post" action="\/settings\/profiler" data-confirm="Disable the Profiler for acme\?/);
  });

  test("a partial capture's reason is printed once", async () => {
    const org = (await web.store.getOrg("acme"))!;
    const reason = "offcpu: tracefs not mounted at /sys/kernel/tracing";
    const q = await web.store.queueCapture(org.id, "ci", { workload: "part", version: "1", env: "", kind: "head", durationSec: 60, warmupSec: 5 }, { limit: 100, windowMs: 1, now: Date.now() });
    const id = (q as { requestId: string }).requestId;
    await web.store.markCaptureRunning(id, Date.now());
    await web.store.completeCapture(id, { outcome: "failed", reason, instrumentation: { probes_requested: 2, probes_attached: 1, missing: [{ probe: "offcpu", reason: "tracefs not mounted at /sys/kernel/tracing" }] } }, Date.now());
    const html = await (await member.get(`/profiling/captures/${id}`)).text();
    expect(html.split("tracefs not mounted at /sys/kernel/tracing").length - 1).toBe(1);
  });
});
