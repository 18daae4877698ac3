// The Profiling list after deploys (issue 19): the verdict column, the verdict filter and the
// per-version summary, and queueing a replicate from a head's screen, over the deploy history of
// web-deploy-history.ts.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { seedDeployHistory } from "./web-deploy-history.ts";
import { startWeb, type Client, type Web } from "./web-harness.ts";

setDefaultTimeout(60_000);
let web: Web;
let member: Client;
let ids: Record<string, string[]>;

beforeAll(async () => {
  web = await startWeb();
  member = await web.member("acme", "m@acme.test", "member");
  ids = await seedDeployHistory(web);
});
afterAll(() => web.stop());

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
