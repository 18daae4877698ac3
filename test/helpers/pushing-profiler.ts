// A compiled `runner server` on a real SQLite store, set up with `runner admin` as an operator
// does (an org with the Profiler enabled, a member who signs in, a capture token, a bootstrap
// token), and a Profiler made of the real enrolment, identity and tunnel client code that answers
// each capture order with the next of the ptop streams it was given: queued through the public
// API, pushed through the tunnel gzipped with the instrumentation the Profiler reads from the
// stream, as `runner profiler` pushes what ptop wrote. For tests of what the server makes of real
// ptop streams (the diff on arrival, the capture screen) without capturing inside the server test.
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { instrumentationFromStream } from "../../src/profiler/instrumentation.ts";
import type { ProbeName } from "../../src/protocol/profile-stream.ts";
import { lastLine, startProfiler, startServer, type Replica, type TestProfiler } from "./replicas.ts";
import { mustAdmin } from "./runner-admin.ts";
import { until } from "./until.ts";

export interface PushingProfiler {
  url: string;
  org: string;
  /** the server's --data directory, process id, tunnel address and log lines so far */
  data: string;
  pid: number;
  tunnelUrl: string;
  log: string[];
  member: { email: string; password: string };
  /** Queues a capture through the API; the Profiler pushes `stream` for it. Resolves once the record is done (outcome pushed). */
  push(req: { workload: string; version: string; kind: "head" | "replicate"; duration_sec: number }, stream: string, probes: ProbeName[]): Promise<string>;
  /** `runner admin captures show ID --json`, the operator's view of a record and its diff. */
  show(id: string): { status: string; outcome: string | null; reason: string | null; diff: { verdict: string | null; note: string } | null };
  stop(): Promise<void>;
}

export async function startPushingProfiler(parent: string, org = "acme"): Promise<PushingProfiler> {
  const data = mkdtempSync(join(parent, "server-"));
  const member = { email: `reader@${org}.test`, password: "a long password for the capture screen" };
  mustAdmin(data, ["org", "create", org]);
  mustAdmin(data, ["profiler", "enable", org]);
  mustAdmin(data, ["user", "create", org, member.email, "--role", "member", "--password-stdin"], `${member.password}\n`);
  const token = lastLine(mustAdmin(data, ["token", "create", org, "release-pipeline"]).trim());
  const bootstrap = lastLine(mustAdmin(data, ["bootstrap-token", "create", org]).trim());
  let server: Replica | undefined;
  let profiler: TestProfiler | undefined;
  // One order at a time: push() waits for each record, so the next stream is always this order's.
  const next: Array<{ stream: string; probes: ProbeName[] }> = [];
  try {
    server = await startServer(["--data", data]);
    profiler = await startProfiler({
      dir: mkdtempSync(join(parent, "profiler-")),
      tenant: org,
      instanceId: "pushing-node",
      bootstrapToken: bootstrap,
      enrolUrl: server.url,
      tunnelUrl: server.tunnelUrl,
      onOrder: (order, client) => {
        const p = next.shift();
        if (!p) return client.send({ type: "answer", request_id: order.request_id, answer: "refused", reason: "the test gave no stream for this order" });
        client.send({ type: "answer", request_id: order.request_id, answer: "running" });
        client.send({
          type: "result",
          request_id: order.request_id,
          outcome: "pushed",
          instrumentation: instrumentationFromStream(p.stream, p.probes),
          profile_gz_b64: gzipSync(p.stream).toString("base64"),
        });
      },
    });
  } catch (err) {
    profiler?.stop();
    server?.proc.kill();
    throw err;
  }
  const srv = server;
  const show: PushingProfiler["show"] = (id) => JSON.parse(mustAdmin(data, ["captures", "show", id, "--json"]));
  return {
    url: srv.url,
    org,
    data,
    pid: srv.proc.pid,
    tunnelUrl: srv.tunnelUrl,
    log: srv.log,
    member,
    show,
    async push(req, stream, probes) {
      next.push({ stream, probes });
      const res = await fetch(`${srv.url}/api/profiling/captures`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ ...req, warmup_sec: 0 }),
      });
      const body = (await res.json()) as { request_id?: string; error?: string };
      if (res.status !== 202 || !body.request_id) throw new Error(`queueing ${req.workload}@${req.version} (${req.kind}): ${res.status} ${body.error ?? ""}`);
      const id = body.request_id;
      const rec = await until(`capture ${id} (${req.version} ${req.kind}) done`, 60_000, async () => {
        const r = show(id);
        return r.status === "done" ? r : null;
      }, 250);
      if (rec.outcome !== "pushed") throw new Error(`capture ${id} ended ${rec.outcome}: ${rec.reason}\n${srv.log.slice(-10).join("\n")}`);
      return id;
    },
    async stop() {
      profiler!.stop();
      srv.proc.kill();
      await srv.proc.exited;
    },
  };
}
