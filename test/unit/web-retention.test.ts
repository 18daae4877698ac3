// The app after retention pruned a deploy history's older versions: the capture screen of a pruned
// capture, and of a version whose baseline was pruned, says so (and answers 200); Settings shows
// the storage used and the policy.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { applyRetention } from "../../src/server/retention/apply.ts";
import { seedDeployHistory } from "./web-deploy-history.ts";
import { startWeb, type Client, type Web } from "./web-harness.ts";

let web: Web;
let owner: Client;
let ids: Record<string, string[]>;

beforeAll(async () => {
  web = await startWeb();
  owner = await web.member("acme", "owner@acme.test", "owner");
  ids = await seedDeployHistory(web);
  await web.store.setRetentionPolicy("acme", { headDays: 1, replicateDays: 1, keepVersions: 1 });
  // five days on: in prod only 1.2.0, the latest, keeps its profiles (staging's 1.2.0 is its own latest)
  expect(await applyRetention(web.store, "acme", { now: Date.now() + 5 * 86_400_000, dryRun: false })).toMatchObject({ pruned: 6, kept: 6 });
}, 60_000);
afterAll(() => web.stop());

test("a pruned capture and a diff whose baseline was pruned say so on the capture screen", async () => {
  const pruned = await owner.get(`/profiling/captures/${ids["1.1.0/prod"]![0]}`);
  expect(pruned.status).toBe(200);
  const html = await pruned.text();
  expect(html).toMatch(/<p class="flash" id="pruned" role="note">This capture's profile was pruned on \d{4}-\d\d-\d\d by the organization's retention policy/);
  expect(html).toContain('id="baseline-pruned"'); // 1.1.0 was compared with 1.0.0, pruned too
  const kept = await (await owner.get(`/profiling/captures/${ids["1.2.0/prod"]![0]}`)).text();
  expect(kept).not.toContain('id="pruned"');
  expect(kept).toMatch(/<p class="flash" id="baseline-pruned" role="note">Baseline pruned on \d{4}-\d\d-\d\d/);
});

test("Settings shows the storage used, what was pruned, and the policy", async () => {
  const html = await (await owner.get("/settings")).text();
  expect(html).toMatch(/<p id="storage-used"><strong>[\d.]+ MiB<\/strong> used: 6 profiles \([\d.]+ MiB\) and their diffs \([\d.]+ MiB\); 6 captures pruned so far\.<\/p>/);
  expect(html).toContain("Retention: heads kept 1 day, replicates kept 1 day; the latest 1 version of each workload always kept.");
});
