// The pipeline's read side over real HTTP against a real SQLite store: a read token reads a
// capture's status, outcome and verdict (GET /api/profiling/captures/{id}) and nothing else; a
// capture token reads nothing; `runner capture --wait` (the executable) follows a capture to its
// verdict and exits with the status a pipeline gates on.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { CaptureStatusBody, gateOf } from "../../src/protocol/capture-status.ts";
import { CAPTURE_TOKEN_PREFIX, generateToken, hashToken, READ_TOKEN_PREFIX } from "../../src/protocol/token-format.ts";
import { redactSecrets } from "../../src/log.ts";
import { BOOTSTRAP_TOKEN_PREFIX } from "../../src/protocol/token-format.ts";
import { runnerCommand } from "../helpers/runner-bin.ts";
import { seedDeployHistory } from "./web-deploy-history.ts";
import { startWeb, type Web } from "./web-harness.ts";

let web: Web;
let ids: Record<string, string[]>;
let read: string;
let capture: string;
let queuedId: string;

async function readToken(org: string, name: string, workloads: string[] | null = null): Promise<string> {
  const t = generateToken(READ_TOKEN_PREFIX);
  await web.store.addReadToken(org, name, hashToken(t), workloads);
  return t;
}
const get = (id: string, token: string | null, how: "header" | "query" = "header") =>
  fetch(`${web.url}/api/profiling/captures/${id}${how === "query" && token ? `?token=${token}` : ""}`, {
    headers: how === "header" && token ? { authorization: `Bearer ${token}` } : {},
  });

beforeAll(async () => {
  web = await startWeb();
  await web.store.createOrg("acme");
  await web.store.setProfilerEnabled("acme", true);
  ids = await seedDeployHistory(web);
  read = await readToken("acme", "deploy-gate");
  capture = await web.captureToken("acme", "release-pipeline");
  const q = await fetch(`${web.url}/api/profiling/captures`, {
    method: "POST",
    headers: { authorization: `Bearer ${capture}` },
    body: JSON.stringify({ workload: "shop", version: "2.0.0" }),
  });
  queuedId = ((await q.json()) as { request_id: string }).request_id;
});
afterAll(() => web.stop());

describe("GET /api/profiling/captures/{id} with a read token", () => {
  test("a regressed version: the verdict, its sentence and the confirmed rise, in the published schema", async () => {
    const res = await get(ids["1.1.0/prod"]!.at(-1)!, read);
    expect(res.status).toBe(200);
    const body = (await res.json()) as CaptureStatusBody;
    expect(Value.Errors(CaptureStatusBody, body).First()).toBeUndefined();
    expect(body).toMatchObject({ workload: "shop", version: "1.1.0", kind: "replicate", status: "done", outcome: "pushed", verdict_pending: false });
    expect(body.diff).toMatchObject({ head_request_id: ids["1.1.0/prod"]![0], baseline: "compared", verdict: "changed", compared_with: { version: "1.0.0" } });
    expect(body.diff!.sentence).toContain("function");
    expect(body.diff!.changes).toContainEqual(expect.objectContaining({ function: "target", direction: "up", confirmation: "confirmed" }));
    expect(gateOf(body)).toBe("regression");
    // Nothing else: no requester, no instrumentation, no profile, no flame graph.
    expect(Object.keys(body).sort()).toEqual(["diff", "env", "kind", "outcome", "reason", "request_id", "status", "verdict_pending", "version", "workload"]);
  });

  test("the first version has nothing to compare with: insufficient, not failed; a queued capture has no diff", async () => {
    const first = (await (await get(ids["1.0.0/prod"]![0]!, read, "query")).json()) as CaptureStatusBody;
    expect(first.diff).toMatchObject({ baseline: "none", verdict: null, compared_with: null });
    expect(gateOf(first)).toBe("insufficient");
    const queued = (await (await get(queuedId, read)).json()) as CaptureStatusBody;
    expect(queued).toMatchObject({ status: "queued", outcome: null, verdict_pending: false, diff: null });
  });

  test("a capture token reads nothing; a malformed token is refused with what is wrong, never echoed", async () => {
    const res = await get(ids["1.1.0/prod"]![0]!, capture);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
    expect(((await res.json()) as { error: string }).error).toBe("invalid read token: this is a capture token (rpcap_…), not a read token (rpread_…)");
    const short = (await (await get(ids["1.1.0/prod"]![0]!, "rpread_notarealtoken")).json()) as { error: string };
    expect(short.error).toContain("it is 20 characters long; a read token is 56");
    expect(short.error).not.toContain("notarealtoken");
    expect((await get(ids["1.1.0/prod"]![0]!, null)).status).toBe(401);
    // and a read token queues nothing
    const post = await fetch(`${web.url}/api/profiling/captures`, { method: "POST", headers: { authorization: `Bearer ${read}` }, body: JSON.stringify({ workload: "shop", version: "9" }) });
    expect(post.status).toBe(401);
  });

  test("another organization's capture, a workload outside the token's scope and an unknown id are the same 404; revoked is 401", async () => {
    await web.store.createOrg("other");
    const stranger = await readToken("other", "gate");
    const scoped = await readToken("acme", "checkout-only", ["checkout"]);
    const inScope = await readToken("acme", "shop-only", ["shop"]);
    const id = ids["1.1.0/prod"]![0]!;
    const answers = await Promise.all([get(id, stranger), get(id, scoped), get("no-such-id", read)]);
    expect(answers.map((r) => r.status)).toEqual([404, 404, 404]);
    expect((await get(id, inScope)).status).toBe(200);
    await web.store.revokeReadToken("acme", "shop-only");
    expect((await get(id, inScope)).status).toBe(401);
  });

  test("every kind of token, a read token included, is redacted from log lines", () => {
    for (const prefix of [CAPTURE_TOKEN_PREFIX, BOOTSTRAP_TOKEN_PREFIX, READ_TOKEN_PREFIX] as const) {
      const t = generateToken(prefix);
      expect(redactSecrets(`workload=${t}`)).not.toContain(t.slice(prefix.length + 1, prefix.length + 20));
    }
  });

  test("/openapi.json publishes the endpoint with the same schema objects", async () => {
    const doc = (await (await fetch(`${web.url}/openapi.json`)).json()) as any;
    const op = doc.paths["/api/profiling/captures/{id}"].get;
    expect(Object.keys(op.responses).sort()).toEqual(["200", "401", "404"]);
    expect(op.responses["200"].content["application/json"].schema).toEqual(JSON.parse(JSON.stringify(CaptureStatusBody)));
    expect(doc.components.schemas.DiffSummary.properties.baseline).toBeDefined();
  });
});

async function run(args: string[], env: Record<string, string> = {}) {
  const p = Bun.spawn([...runnerCommand(), "capture", ...args], { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}

describe("runner capture --wait", () => {
  test("a confirmed regression: the verdict and the changed function printed, exit 3; --json ends with the result", async () => {
    const r = await run(["--url", web.url, "--wait", "--request-id", ids["1.1.0/prod"]!.at(-1)!], { RUNNER_READ_TOKEN: read });
    expect({ code: r.code, err: r.err }).toEqual({ code: 3, err: "" });
    expect(r.out).toContain("verdict: changed — ");
    expect(r.out).toMatch(/↑ target\s+cpu self\s+\+\d+\.\d%.*confirmed/);
    expect(r.out).toContain("result: a confirmed regression (exit 3)");
    const j = await run(["--url", web.url, "--wait", "--json", "--request-id", ids["1.1.0/prod"]!.at(-1)!, "--read-token", read]);
    expect(j.code).toBe(3);
    const last = JSON.parse(j.out.trim().split("\n").at(-1)!);
    expect(last).toMatchObject({ event: "result", gate: "regression", exit_code: 3, outcome: "pushed" });
  }, 60_000);

  test("no baseline yet: insufficient, exit 4; a queued capture that never runs: exit 1 at --timeout", async () => {
    expect((await run(["--url", web.url, "--wait", "--request-id", ids["1.0.0/prod"]![0]!, "--read-token", read])).code).toBe(4);
    const t = await run(["--url", web.url, "--wait", "--request-id", queuedId, "--read-token", read, "--timeout", "1"]);
    expect(t.code).toBe(1);
    expect(t.out).toContain("queued (waits for a live Profiler)");
    expect(t.err).toContain("no verdict");
  }, 60_000);

  test("a failure reason a Profiler wrote is printed terminal-safe; --json keeps it exact", async () => {
    const org = (await web.store.getOrg("acme"))!;
    const q = await web.store.queueCapture(org.id, "ci", { workload: "shop", version: "9.9.9", env: "", kind: "head", durationSec: 5, warmupSec: 0 }, { limit: 1e6, windowMs: 1, now: Date.now() });
    if (q.kind !== "queued") throw new Error(q.kind);
    await web.store.markCaptureRunning(q.requestId);
    const reason = "ptop: \u001b]0;pwned\u0007\u001b[2K\rstatus OK \u202eexe.txt";
    await web.store.completeCapture(q.requestId, { outcome: "failed", reason });
    const r = await run(["--url", web.url, "--wait", "--request-id", q.requestId], { RUNNER_READ_TOKEN: read });
    expect(r.code).toBe(5);
    expect(r.out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202e]/);
    expect(r.out).toContain("(ptop: \\x1b]0;pwned\\x07\\x1b[2K\\x0dstatus OK \\u202eexe.txt)");
    const j = await run(["--url", web.url, "--wait", "--json", "--request-id", q.requestId], { RUNNER_READ_TOKEN: read });
    expect(j.out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202e]/);
    expect(JSON.parse(j.out.trim().split("\n").at(-1)!)).toMatchObject({ event: "result", outcome: "failed", reason });
  }, 60_000);

  test("usage: --wait without a read token, or with a capture token's mistake, says so and exits 2", async () => {
    const r = await run(["--url", web.url, "--token", capture, "--workload", "shop", "--version", "3", "--wait"], { RUNNER_READ_TOKEN: "" });
    expect(r.code).toBe(2);
    expect(r.err).toContain("--wait needs a read token");
    const typo = await run(["--url", web.url, "--wait", "--jsno"]);
    expect(typo.code).toBe(2);
    expect(typo.err.split("\n")[0]).toBe("runner capture: unknown option --jsno (did you mean --json?)");
  }, 60_000);
});
