// Compare anything with anything (issue 19): the pickers' query diffs the chosen sides with
// witness's own diff (the automatic choice gives the stored diff's statistics exactly), any two
// versions or envs, the head alone or a chosen set; downloads of both sides merged and of the
// diff. (The list's verdicts over the same history: web-profiling-verdicts.test.ts.)
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import type { DiffResult } from "../../src/witness/diff.ts";
import { parseFolded } from "../../src/witness/folded.ts";
import { axisTotal } from "../../src/witness/model.ts";
import { parseProfile } from "../../src/witness/parse.ts";
import { seedDeployHistory } from "./web-deploy-history.ts";
import { startWeb, type Client, type Web } from "./web-harness.ts";

setDefaultTimeout(60_000);
let web: Web;
let member: Client;
const ids: Record<string, string[]> = {};

beforeAll(async () => {
  web = await startWeb();
  member = await web.member("acme", "m@acme.test", "member");
  Object.assign(ids, await seedDeployHistory(web));
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
  test("an axis named like a JavaScript prototype member is a 404 naming the axes that exist, not a 500", async () => {
    for (const side of ["before", "after"]) {
      for (const axis of ["__proto__", "constructor", "toString"]) {
        const r = await member.get(`/profiling/compare/download/${side}?${q({ b_version: "1.0.0", a_version: "1.1.0" })}&axis=${axis}`);
        expect({ side, axis, status: r.status, text: await r.text() }).toEqual({ side, axis, status: 404, text: `axis "${axis}" does not exist on this side; its axes: cpu` });
      }
    }
  });
});
