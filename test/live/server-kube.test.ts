// The control plane's reference Kubernetes manifests (image/kubernetes/server.yaml) run for real
// under `podman kube play`: the server image built by image/build-server-image.sh from dist/runner,
// PostgreSQL from the StatefulSet's pod template (its image built from Debian's postgresql package:
// test/helpers/postgres-image.ts, no registry here), and the Deployment's pod template started as
// two replicas. Both answer /healthz over TLS with a certificate of a private CA, and both hold a
// lease in the one database. Podman 4.3 plays Pods and Deployments (one pod each, whatever
// `replicas` says) but no StatefulSet or Service: the templates are played as Pods, the Service
// name resolved through hostAliases, the volume claim a host directory. Everything else is as written.
//
// Needs root, buildah, podman, runc, catatonit, openssl and the postgresql package; runs where they
// are, and must run with RUNNER_REQUIRE_IMAGE=1 (CI). Its own container storage: nothing shared
// with other runs.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { checkServerIdentity, type PeerCertificate } from "node:tls";
import { join } from "node:path";
import { SQL } from "bun";
import { buildPostgresImage, postgresHome } from "../helpers/postgres-image.ts";
import { liveAvailable, NOT_ROOT, REPO_ROOT } from "../helpers/runner-bin.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const TOOLS = ["buildah", "podman", "runc", "catatonit", "openssl", "ldd"];
const missing = TOOLS.filter((t) => Bun.which(t, { PATH: `${process.env.PATH}:/usr/sbin:/sbin:/usr/libexec/podman` }) === null);
if (!postgresHome()) missing.push("postgresql");
if (process.env.RUNNER_REQUIRE_IMAGE === "1" && missing.length > 0) throw new Error(`RUNNER_REQUIRE_IMAGE=1 but missing: ${missing.join(", ")}`);
const runner = join(REPO_ROOT, "dist/runner");
const reason = whyNot([!liveAvailable(), NOT_ROOT], [missing.length > 0, `needs ${missing.join(", ")}`], [!Bun.file(runner).size, "needs dist/runner (npm run build)"]);

const PASSWORD = "kube play database password";
let work = "";
let env: Record<string, string> = {};
const pods: string[] = [];
const secrets: string[] = [];
const tag = (name: string) => `localhost/${name}-kube-test:${process.pid}`;

function sh(argv: string[], timeoutMs = 300_000): { code: number; stdout: string; stderr: string } {
  const r = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env }, timeout: timeoutMs });
  return { code: r.exitCode ?? -1, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}
function must(argv: string[], timeoutMs?: number): string {
  const r = sh(argv, timeoutMs);
  if (r.code !== 0) throw new Error(`${argv.join(" ")} exited ${r.code}: ${r.stderr.slice(-3000)}`);
  return r.stdout;
}

/** A podman secret holding a Kubernetes Secret's data (key → base64), which kube play reads for secretKeyRef. */
function secret(name: string, data: Record<string, string>): void {
  const file = join(work, `${name}.json`);
  writeFileSync(file, JSON.stringify(Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString("base64")]))));
  must(["podman", "secret", "create", name, file]);
  secrets.push(name);
}

/**
 * Plays `spec` as a Pod named `name`; returns its address on podman's network. Podman 4.3 would
 * publish every containerPort on the host as well (two replicas cannot both have 8080 there), so
 * the ports are left out here, and the probes name their port by number instead of by name.
 */
function play(name: string, labels: Record<string, string>, spec: any): string {
  for (const c of spec.containers) {
    const byName = Object.fromEntries((c.ports ?? []).map((p: any) => [p.name, p.containerPort]));
    for (const probe of [c.readinessProbe, c.livenessProbe]) if (probe?.httpGet) probe.httpGet.port = byName[probe.httpGet.port] ?? probe.httpGet.port;
    delete c.ports;
  }
  const file = join(work, `${name}.json`);
  writeFileSync(file, JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name, labels }, spec }));
  pods.push(name);
  must(["podman", "kube", "play", file]);
  return must(["podman", "pod", "inspect", name, "--format", "{{.InfraContainerID}}"]).trim();
}

function addressOf(infra: string): string {
  return must(["podman", "inspect", infra, "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}"]).trim();
}

async function until<T>(what: string, f: () => Promise<T | null> | T | null, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown = null;
  while (Date.now() < end) {
    try {
      const v = await f();
      if (v !== null) return v;
    } catch (err) {
      last = err;
    }
    await Bun.sleep(500);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ""}`);
}

beforeAll(() => {
  if (reason) return;
  work = mkdtempSync("/var/tmp/runner-server-kube-");
  // Storage and engine settings of this run alone: vfs (works on any file system), runc with
  // cgroupfs and lowered rlimits (as test/live/image-build.test.ts explains).
  writeFileSync(join(work, "storage.conf"), `[storage]\ndriver = "vfs"\ngraphroot = "${work}/graph"\nrunroot = "${work}/run"\n`);
  writeFileSync(join(work, "containers.conf"), '[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]\n[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\n');
  env = { CONTAINERS_STORAGE_CONF: join(work, "storage.conf"), CONTAINERS_CONF: join(work, "containers.conf") };
  must(["bash", join(REPO_ROOT, "image/build-server-image.sh"), runner, tag("runner-server")]);
  buildPostgresImage(tag("postgres"), work, env);
  // A private CA and the server's certificate for the Service's names (docs/install-server.md).
  const ssl = (args: string[]) => must(["openssl", ...args]);
  ssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2", "-subj", "/CN=runner test CA", "-keyout", `${work}/ca.key`, "-out", `${work}/ca.crt`]);
  ssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=runner-server", "-keyout", `${work}/tls.key`, "-out", `${work}/tls.csr`]);
  writeFileSync(`${work}/san.ext`, "subjectAltName=DNS:runner-server,DNS:runner-server.runner.svc\n");
  ssl(["x509", "-req", "-in", `${work}/tls.csr`, "-CA", `${work}/ca.crt`, "-CAkey", `${work}/ca.key`, "-CAcreateserial", "-days", "2", "-extfile", `${work}/san.ext`, "-out", `${work}/tls.crt`]);
}, 600_000);

afterAll(() => {
  if (!work) return;
  for (const p of pods) sh(["podman", "pod", "rm", "--force", "--time", "0", p]);
  for (const s of secrets) sh(["podman", "secret", "rm", s]);
  for (const t of [tag("runner-server"), tag("postgres")]) sh(["podman", "rmi", "--force", t]);
  rmSync(work, { recursive: true, force: true });
}, 120_000);

describeUnless(reason)("the control plane's Kubernetes manifests under podman kube play", () => {
  test("PostgreSQL and two server replicas start; both answer /healthz over TLS and share the database", async () => {
    const docs = Bun.YAML.parse(readFileSync(join(REPO_ROOT, "image/kubernetes/server.yaml"), "utf8")) as any[];
    const deployment = docs.find((d) => d.kind === "Deployment");
    const statefulSet = docs.find((d) => d.kind === "StatefulSet");
    const run = `${process.pid}`;
    // Secrets are podman-wide: this run's own names.
    const dbSecret = `runner-postgres-${run}`;
    secret(dbSecret, { password: PASSWORD, "database-url": `postgres://runner:${encodeURIComponent(PASSWORD)}@runner-postgres:5432/runner` });
    // Podman 4.3 writes a Secret volume's files base64-encoded (the token of the Profiler's test
    // too; later versions decode them), which no PEM reader takes: the certificate and key of the
    // Secret runner-server-tls are mounted from a host directory instead, readable by the server's user only.
    const tlsDir = join(work, "tls-volume");
    mkdirSync(tlsDir, { mode: 0o500 });
    for (const f of ["tls.crt", "tls.key"]) {
      writeFileSync(join(tlsDir, f), readFileSync(join(work, f)), { mode: 0o400 });
      chownSync(join(tlsDir, f), 65532, 65532);
    }
    chownSync(tlsDir, 65532, 65532);
    const renameSecrets = (spec: any) => {
      for (const c of spec.containers) for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef?.name === "runner-postgres") e.valueFrom.secretKeyRef.name = dbSecret;
      for (const v of spec.volumes ?? []) if (v.secret?.secretName === "runner-server-tls") {
        delete v.secret;
        v.hostPath = { path: tlsDir, type: "Directory" };
      }
    };

    // PostgreSQL: the StatefulSet's template, its volume claim a host directory owned by its user.
    const pg = structuredClone(statefulSet.spec.template.spec);
    renameSecrets(pg);
    pg.containers[0].image = tag("postgres");
    const data = join(work, "pgdata");
    mkdirSync(data);
    chownSync(data, 999, 999);
    pg.volumes = [{ name: "data", hostPath: { path: data, type: "Directory" } }];
    const pgAddress = addressOf(play(`runner-postgres-${run}`, statefulSet.spec.template.metadata.labels, pg));
    const url = `postgres://runner:${encodeURIComponent(PASSWORD)}@${pgAddress}:5432/runner`;
    await until("PostgreSQL to accept the runner role's password", async () => {
      const sql = new SQL(url);
      try {
        return (await sql`SELECT 1 AS one`)[0].one === 1 ? true : null;
      } finally {
        await sql.close();
      }
    });

    // Two replicas of the Deployment's template; the Service name runner-postgres resolved as a Service would.
    const addresses: string[] = [];
    const names: string[] = [];
    for (const r of ["a", "b"]) {
      names.push(`runner-server-${r}-${run}`);
      const spec = structuredClone(deployment.spec.template.spec);
      renameSecrets(spec);
      spec.containers[0].image = tag("runner-server");
      spec.hostAliases = [{ ip: pgAddress, hostnames: ["runner-postgres"] }];
      addresses.push(addressOf(play(names.at(-1)!, deployment.spec.template.metadata.labels, spec)));
    }
    const ca = readFileSync(`${work}/ca.crt`, "utf8");
    // The pods are reached by address; the certificate is checked for the Service's name.
    const tls = { ca, checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity("runner-server", cert) };
    const health = await Promise.all(
      addresses.map((a, i) =>
        until(`/healthz of the replica at ${a}`, async () => {
          const res = await fetch(`https://${a}:8080/healthz`, { tls } as RequestInit);
          return res.status === 200 ? res.status : null;
        }).catch((err: Error) => {
          const logs = sh(["podman", "logs", `${names[i]}-server`]);
          throw new Error(`${err.message}\nits log:\n${(logs.stdout + logs.stderr).slice(-3000)}`);
        }),
      ),
    );
    expect(health).toEqual([200, 200]);
    // Plain HTTP is not served, and a client that does not trust the CA is refused.
    await expect(fetch(`http://${addresses[0]}:8080/healthz`)).rejects.toThrow();
    await expect(fetch(`https://${addresses[1]}:8080/healthz`)).rejects.toThrow();
    // One database: each replica renews its own lease in it.
    const sql = new SQL(url);
    try {
      const leases = await until("two replica leases", async () => {
        const [row] = await sql`SELECT count(*)::int AS n FROM replicas WHERE heartbeat_at > ${Date.now() - 10_000}`;
        return row.n === 2 ? row.n : null;
      });
      expect(leases).toBe(2);
    } finally {
      await sql.close();
    }
  }, 600_000);
});
