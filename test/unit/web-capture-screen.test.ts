// The capture screen: instrumentation declaration ("N of M probes" with causes and fixes), the diff
// against the prior version (verdict, flame data per axis, absent axes, ranked changes), downloads.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { parsePprof } from "../../src/witness/pprof.ts";
import { fixFor } from "../../src/server/web/instrumentation.ts";
import type { FlameAxis, FlameNode } from "../../src/server/web/flame-data.ts";
import { makeProgram, rng, sampleCapture, version } from "../fixtures/profiles/synthetic.ts";
import { startWeb, type Client, type Web } from "./web-harness.ts";

setDefaultTimeout(30_000);
let web: Web;
let member: Client;
let v1: string;
let v2: string;
let v2rep: string;
let lonely: string;

const TRACEFS = "tracefs not mounted at /sys/kernel/tracing";
const DENIED = "opening /proc/4242/ns/mnt: permission denied";
const PARTIAL = { probes_requested: 3, probes_attached: 1, missing: [{ probe: "offcpu", reason: TRACEFS }, { probe: "syscalls", reason: DENIED }] };

beforeAll(async () => {
  web = await startWeb();
  member = await web.member("acme", "m@acme.test", "member");
  // The same program and effect as witness's own diff test, which it flags.
  const p = makeProgram({ seed: 11, stacks: 150, leaves: 50, cv: 0.01, targetShare: 0.02 });
  const r = rng(5);
  const full = { probes_requested: 1, probes_attached: 1, missing: [] };
  const before = version(p, r, 3, { samples: 100_000 });
  const after = version(p, r, 3, { samples: 100_000, change: { target: 1.5 } });
  after[0]!.missing = PARTIAL.missing.map((m) => ({ axis: m.probe, reason: m.reason }));
  v1 = await web.pushCapture("acme", { workload: "shop", version: "1" }, before[0]!, full);
  for (const c of before.slice(1)) await web.pushCapture("acme", { workload: "shop", version: "1", kind: "replicate" }, c, full);
  v2 = await web.pushCapture("acme", { workload: "shop", version: "2" }, after[0]!, PARTIAL);
  for (const c of after.slice(1)) v2rep = await web.pushCapture("acme", { workload: "shop", version: "2", kind: "replicate" }, c, full);
  lonely = await web.pushCapture("acme", { workload: "solo", version: "1" }, sampleCapture(p, r, { samples: 1000 }), full);
});
afterAll(() => web.stop());

const screen = async (id: string) => {
  const res = await member.get(`/profiling/captures/${id}`);
  expect(res.status).toBe(200);
  return res.text();
};

function flameData(html: string, axis: string): FlameAxis {
  const m = new RegExp(`<script type="application/json" id="flame-${axis}">([\\s\\S]*?)</script>`).exec(html);
  expect(m).not.toBeNull();
  return JSON.parse(m![1]!);
}

/** The first node of that name in pre-order (the rows are the tree, flat). */
function find(f: FlameAxis, name: string): FlameNode | null {
  return f.nodes.find((n) => n[0] === name) ?? null;
}

describe("instrumentation", () => {
  test("a partial capture declares N of M probes, each missing collector with its cause and fix", async () => {
    const html = await screen(v2);
    expect(html).toContain('<p class="instr partial" id="instrumentation">1 of 3 probes</p>');
    expect(html).toContain(`<strong>offcpu</strong> did not attach: ${TRACEFS}`);
    expect(html).toContain("Fix: mount the host&#39;s /sys/kernel/tracing and /sys/kernel/debug into the Profiler container");
    expect(html).toContain(`<strong>syscalls</strong> did not attach: ${DENIED}`);
    expect(html).toContain("Fix: load the Profiler&#39;s AppArmor profile");
  });

  test("a complete capture says fully instrumented; a queued one says it has not run", async () => {
    expect(await screen(v1)).toContain('<p class="instr full" id="instrumentation">fully instrumented</p>');
    const org = (await web.store.getOrg("acme"))!;
    const q = await web.store.queueCapture(org.id, "ci", { workload: "shop", version: "3", env: "", kind: "head", durationSec: 60, warmupSec: 5 }, { limit: 100, windowMs: 1, now: Date.now() });
    const html = await screen((q as { requestId: string }).requestId);
    expect(html).toContain("Not run yet");
    expect(html).not.toContain("Downloads");
    // Still to come: the script refetches and swaps the content in (no full reload that loses focus).
    expect(html).toContain('<div id="capture" data-poll="1">');
    expect(html).not.toContain('http-equiv="refresh"');
  });

  test("a head recorded pushed before its diff is stored says the diff is being computed, and reloads", async () => {
    const org = (await web.store.getOrg("acme"))!;
    const q = await web.store.queueCapture(org.id, "ci", { workload: "shop", version: "4", env: "", kind: "head", durationSec: 60, warmupSec: 5 }, { limit: 100, windowMs: 1, now: Date.now() });
    const id = (q as { requestId: string }).requestId;
    await web.store.markCaptureRunning(id, Date.now());
    await web.store.completeCapture(id, { outcome: "pushed", instrumentation: null }, Date.now());
    const html = await screen(id);
    expect(html).toContain("Computing the diff against the prior version");
    expect(html).toContain('<div id="capture" data-poll="1">');
    // A minute on without a diff, computing it failed: said so, and no endless reload.
    const q2 = await web.store.queueCapture(org.id, "ci", { workload: "shop", version: "5", env: "", kind: "head", durationSec: 60, warmupSec: 5 }, { limit: 100, windowMs: 1, now: Date.now() - 120_000 });
    const old = (q2 as { requestId: string }).requestId;
    await web.store.markCaptureRunning(old, Date.now() - 120_000);
    await web.store.completeCapture(old, { outcome: "pushed", instrumentation: null }, Date.now() - 61_000);
    const failed = await screen(old);
    expect(failed).toContain("computing it failed");
    expect(failed).toContain('<div id="capture" data-poll="0">');
    // Done with its diff stored: no refetching.
    expect(await screen(v2)).toContain('<div id="capture" data-poll="0">');
  });

  test("fixes: a reason that already carries its fix is not given a second one", () => {
    expect(fixFor("tracefs is not mounted ...; fix: mount -t tracefs nodev /sys/kernel/tracing")).toBeNull();
    expect(fixFor("something else entirely")).toBeNull();
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

describe("diff", () => {
  test("verdict, what it was compared with, absent axes shown as absent", async () => {
    const html = await screen(v2);
    // A regression is told apart from an improvement, in words as well as colour.
    expect(html).toContain('<span class="verdict v-changed d-up" id="verdict" data-verdict="changed">changed ↑ regression</span>');
    expect(html).toContain(`href="/profiling/captures/${v1}">version 1</a>`);
    expect(html).toContain("<strong>offcpu</strong>: absent");
    expect(html).toContain("<strong>syscalls</strong>: absent");
    expect(html).not.toContain('id="flame-offcpu"');
    expect(html).not.toContain('id="flame-syscalls"');
  });

  test("the cpu flame data carries before/after shares and the flagged change of the regressed function", async () => {
    const f = flameData(await screen(v2), "cpu");
    expect(f.nodes[0]![1]).toBeCloseTo(1, 3);
    expect(f.nodes[0]![2]).toBeCloseTo(1, 3);
    const target = find(f, "target")!;
    expect(target[1]).toBeGreaterThan(target[2]); // after > before
    const c = f.changes.target!;
    expect(c[3]).toBe(true); // flagged
    expect(c[0]).toBeGreaterThan(0.25);
    expect(c[1]).toBeLessThan(c[0]);
    expect(c[2]).toBeGreaterThan(c[0]);
    expect(f.captures).toEqual({ before: 3, after: 3 });
  });

  test("the ranked table puts the flagged change first with its confirmation status", async () => {
    const html = await screen(v2);
    const table = /<table class="changes">[\s\S]*?<\/table>/.exec(html)![0];
    const rows = [...table.matchAll(/<tr class="([^"]*)" data-axis="[^"]*" data-kind="[^"]*"><td class="fn">([^<]+)<\/td><td>([^<]+)<\/td>[\s\S]*?<span class="chg (\w+)">[^<]*<\/span>(?: <span class="muted">(\w+)<\/span>)?<\/td><td class="words">([^<]*)[\s\S]*?<\/tr>/g)];
    expect(rows.length).toBeGreaterThan(10);
    const flagged = rows.filter((r) => r[1] !== "");
    // flagged rows first, then the rest
    expect(rows.slice(0, flagged.length).every((r) => r[1] !== "")).toBe(true);
    const target = flagged.find((r) => r[2] === "target")!;
    expect(target[1]).toBe("flag-up");
    expect(target[4]).toBe("up");
    expect(["confirmed", "suspect"]).toContain(target[5]!);
    expect(target[6]).toMatch(/^Regression: grew by \d+\.\d% \(adjusted p [\d.e-]+ ≤ 0\.05\); changes smaller than ±\d+\.\d% cannot be told from run-to-run noise here\.$/);
    // Unflagged rows say why in words, and an undecided one how many captures would decide it.
    const undecided = rows.find((r) => r[4] === "insufficient");
    if (undecided) expect(undecided[6]).toMatch(/^Undecided: .*(about \d+ captures per version|more than 200 captures per version)/);
  });

  test("a replicate points to its version's head; a first version says there is nothing to compare", async () => {
    const rep = await screen(v2rep);
    expect(rep).toContain(`this replicate feeds the diff of <a href="/profiling/captures/${v2}">the head of 2</a>`);
    // the head's diff, so the head's flame graph: both versions' three captures on each side
    expect(flameData(rep, "cpu")).toEqual(flameData(await screen(v2), "cpu"));
    expect(flameData(rep, "cpu").captures).toEqual({ before: 3, after: 3 });
    const html = await screen(lonely);
    expect(html).toContain("nothing to compare with yet");
    expect(html).toContain('<span class="verdict v-none" id="verdict">no baseline</span>');
    // No diff flame graph, but the capture on its own: its flame graph and top table.
    expect(html).not.toContain('id="flame-cpu"');
    expect(html).toContain('id="flame-own-cpu"');
    expect(html).toContain('id="top-own-cpu-t"');
  });
});

describe("a damaged stored profile", () => {
  test("the screen still shows the record and the diff table, and says the flame graphs are unavailable", async () => {
    const org = (await web.store.getOrg("acme"))!;
    const q = await web.store.queueCapture(org.id, "ci", { workload: "broken", version: "1", env: "", kind: "head", durationSec: 60, warmupSec: 5 }, { limit: 100, windowMs: 1, now: Date.now() });
    const id = (q as { requestId: string }).requestId;
    await web.store.markCaptureRunning(id);
    await web.store.completeCapture(id, { outcome: "pushed", instrumentation: { probes_requested: 1, probes_attached: 1, missing: [] } });
    await web.store.saveProfile(id, new Uint8Array([0x1f, 0x8b, 1, 2, 3]), "node-a");
    const html = await screen(id);
    expect(html).toContain("fully instrumented");
    expect(html).toContain("a stored profile could not be read");
    expect(html).not.toContain("Downloads");
  });
});

describe("downloads", () => {
  test("pprof, speedscope and folded of the capture's own axes; an absent axis is a 404", async () => {
    const pprof = await member.get(`/profiling/captures/${v2}/download/pprof`);
    expect(pprof.status).toBe(200);
    expect(pprof.headers.get("content-disposition")).toBe('attachment; filename="shop-2.pb.gz"');
    const parsed = parsePprof(new Uint8Array(await pprof.arrayBuffer()));
    expect(Object.keys(parsed.axes)).toEqual(["cpu"]);
    const ss = JSON.parse(await (await member.get(`/profiling/captures/${v2}/download/speedscope`)).text());
    expect(ss.$schema).toContain("speedscope");
    const folded = await (await member.get(`/profiling/captures/${v2}/download/folded?axis=cpu`)).text();
    expect(folded).toMatch(/^main;fn_0_\d+;.* \d+$/m);
    const absent = await member.get(`/profiling/captures/${v2}/download/folded?axis=offcpu`);
    expect(absent.status).toBe(404);
    expect(await absent.text()).toContain('axis "offcpu" does not exist in this capture');
    expect((await member.get(`/profiling/captures/${v2}/download/gif`)).status).toBe(404);
    const html = await screen(v2);
    expect(html).toContain(`/profiling/captures/${v2}/download/folded?axis=cpu`);
    expect(html).not.toContain("download/folded?axis=offcpu");
  });
  test("an axis named like a JavaScript prototype member is a 404 naming the axes that exist, not a 500", async () => {
    for (const axis of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"]) {
      const r = await member.get(`/profiling/captures/${v2}/download/folded?axis=${axis}`);
      expect({ axis, status: r.status, text: await r.text() }).toEqual({ axis, status: 404, text: `axis "${axis}" does not exist in this capture; its axes: cpu` });
    }
  });
});
