// The control plane's reference set-ups, held against what running it needs: the systemd unit
// (no privilege at all, the store in a kept state directory, the certificate through credentials,
// systemd's own parser accepts it) and the Kubernetes manifests (two or more replicas on one
// PostgreSQL, both listeners over TLS from a Secret, the database URL from a Secret through the
// environment, /healthz probes over HTTPS, non-root with nothing to escalate). The manifests run
// under podman kube play in test/live/server-kube.test.ts.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/runner-bin.ts";
import { testUnless } from "../helpers/skip.ts";
import { parseUnit, systemdAnalyze, verifyUnit } from "../helpers/systemd-unit.ts";

const unitText = readFileSync(join(REPO_ROOT, "image/runner-server.service"), "utf8");
const svc = parseUnit(unitText).Service!;
const one = (k: string) => {
  expect(svc[k]).toHaveLength(1);
  return svc[k]![0]!;
};

describe("reference systemd unit of runner server", () => {
  test("runs runner server with no privilege: a dynamic user, no capability, no_new_privs", () => {
    expect(one("ExecStart")).toStartWith("/opt/runner/runner server ");
    expect(one("DynamicUser")).toBe("yes");
    expect(one("NoNewPrivileges")).toBe("yes");
    expect(one("CapabilityBoundingSet")).toBe("");
    expect(one("AmbientCapabilities")).toBe("");
    expect(one("ProtectSystem")).toBe("strict");
  });

  test("serves both listeners over TLS, the certificate and key handed over as credentials", () => {
    const exec = one("ExecStart");
    expect(exec).toContain("--tls-cert ${CREDENTIALS_DIRECTORY}/tls.crt --tls-key ${CREDENTIALS_DIRECTORY}/tls.key");
    expect(exec).toContain("--tunnel-listen 0.0.0.0:8443");
    expect(svc.LoadCredential!.map((c) => c.split(":")[0]).sort()).toEqual(["tls.crt", "tls.key"]);
  });

  test("keeps the store in a state directory only the service reads", () => {
    expect(one("ExecStart")).toContain("--data ${STATE_DIRECTORY}");
    expect(one("StateDirectory")).toBe("runner-server");
    expect(one("StateDirectoryMode")).toBe("0700");
    // The PostgreSQL URL (with its password) from a root-only file, never the command line.
    expect(one("EnvironmentFile")).toBe("-/etc/runner/server.env");
  });

  testUnless(systemdAnalyze ? null : "systemd-analyze is not installed (Debian: systemd)")("systemd-analyze verify accepts every line, and reports a bad one", () => {
    const ok = verifyUnit("runner-server.service", unitText, "/opt/runner/runner");
    expect(ok).toEqual({ code: 0, stderr: "" });
    expect(verifyUnit("runner-server.service", unitText.replace("MemoryMax=1G", "MemoryMax=1G\nNoSuchSetting=1"), "/opt/runner/runner").stderr).toContain("Unknown key");
  });
});

const docs = Bun.YAML.parse(readFileSync(join(REPO_ROOT, "image/kubernetes/server.yaml"), "utf8")) as any[];
const deployment = docs.find((d) => d.kind === "Deployment");
const pod = deployment.spec.template.spec;
const server = pod.containers.find((c: any) => c.name === "server");
const args: string[] = server.args;
const arg = (flag: string) => args.find((a) => a.startsWith(`${flag}=`))?.slice(flag.length + 1);
const mountOf = (path: string) => server.volumeMounts.find((m: any) => path.startsWith(`${m.mountPath}/`));

describe("reference Kubernetes manifests of runner server", () => {
  test("a Deployment of at least two replicas of runner server, rolled one at a time", () => {
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(args[0]).toBe("server");
    expect(deployment.spec.strategy.rollingUpdate.maxUnavailable).toBe(1);
  });

  test("both listeners over TLS, with the certificate of a kubernetes.io/tls Secret", () => {
    expect(arg("--listen")).toBe("0.0.0.0:8080");
    expect(arg("--tunnel-listen")).toBe("0.0.0.0:8443");
    const cert = arg("--tls-cert")!;
    const key = arg("--tls-key")!;
    expect([cert.split("/").pop(), key.split("/").pop()]).toEqual(["tls.crt", "tls.key"]);
    const m = mountOf(cert);
    expect(mountOf(key)).toBe(m);
    const volume = pod.volumes.find((v: any) => v.name === m.name);
    expect(volume.secret.secretName).toBe("runner-server-tls");
  });

  test("the database URL comes from a Secret through the environment, never an argument", () => {
    expect(args.some((a) => /postgres/.test(a) || a.startsWith("--data"))).toBe(false);
    const env = server.env.find((e: any) => e.name === "RUNNER_DATABASE_URL");
    expect(env.valueFrom.secretKeyRef).toEqual({ name: "runner-postgres", key: "database-url" });
    expect(env.value).toBeUndefined();
  });

  test("readiness and liveness ask /healthz over HTTPS", () => {
    for (const p of [server.readinessProbe, server.livenessProbe]) expect(p.httpGet).toEqual({ path: "/healthz", port: "https", scheme: "HTTPS" });
    expect(server.ports.find((p: any) => p.name === "https").containerPort).toBe(8080);
  });

  test("non-root, no capability, nothing to escalate, a read-only root file system, no API token", () => {
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532 });
    expect(server.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } });
    expect(pod.automountServiceAccountToken).toBe(false);
  });

  test("PostgreSQL: one StatefulSet with a volume claim, its password from the same Secret, and a Service the URL names", () => {
    const pg = docs.find((d) => d.kind === "StatefulSet");
    const c = pg.spec.template.spec.containers[0];
    expect(c.env.find((e: any) => e.name === "POSTGRES_PASSWORD").valueFrom.secretKeyRef).toEqual({ name: "runner-postgres", key: "password" });
    expect(pg.spec.volumeClaimTemplates[0].spec.accessModes).toEqual(["ReadWriteOnce"]);
    const services = docs.filter((d) => d.kind === "Service").map((d) => d.metadata.name);
    expect(services.sort()).toEqual(["runner-postgres", "runner-server"]);
  });
});
