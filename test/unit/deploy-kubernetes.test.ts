// The reference DaemonSet, parsed and held against the deployment table: hostPID, the five
// capabilities added and ALL dropped, allowPrivilegeEscalation true (explained), AppArmor
// Localhost, one identity volume per node, a read-only target list, the token from a Secret,
// 512Mi, tunnel port 8443, and no Kubernetes API permission at all.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROFILE_NAME } from "../../src/profiler/boot/apparmor.ts";
import { REQUIRED_CAPS } from "../../src/profiler/boot/capability-names.ts";
import { readTargetsFile } from "../../src/profiler/targets.ts";
import { REPO_ROOT } from "../helpers/runner-bin.ts";

const text = readFileSync(join(REPO_ROOT, "image/kubernetes/daemonset.yaml"), "utf8");
const docs = Bun.YAML.parse(text) as any[];
const ds = docs.find((d) => d.kind === "DaemonSet");
const pod = ds.spec.template.spec;
const c = pod.containers.find((x: any) => x.name === "profiler");
const sc = c.securityContext;
const env = Object.fromEntries(c.env.map((e: any) => [e.name, e.value ?? e.valueFrom]));
const mountAt = (path: string) => c.volumeMounts.find((m: any) => m.mountPath === path);
const volume = (name: string) => pod.volumes.find((v: any) => v.name === name);

describe("reference Kubernetes DaemonSet", () => {
  test("is a DaemonSet with hostPID and no user namespace", () => {
    expect(ds.apiVersion).toBe("apps/v1");
    expect(pod.hostPID).toBe(true);
    expect(pod.hostUsers === undefined || pod.hostUsers === true).toBe(true);
  });

  test("the Profiler container drops ALL and adds exactly the five; never privileged", () => {
    expect(sc.capabilities.drop).toEqual(["ALL"]);
    expect([...sc.capabilities.add].sort()).toEqual(REQUIRED_CAPS.map((x) => x.short).sort());
    expect(sc.privileged).toBeUndefined();
    expect(sc.runAsNonRoot).toBe(true);
    expect(sc.runAsUser).toBe(65532);
  });

  test("allowPrivilegeEscalation is true, and the manifest says why", () => {
    expect(sc.allowPrivilegeEscalation).toBe(true);
    const at = text.indexOf("allowPrivilegeEscalation: true");
    expect(text.slice(Math.max(0, at - 500), at)).toMatch(/no_new_privs[\s\S]*file\s+#?\s*capabilities/);
  });

  test("AppArmor: Localhost profile runner-profiler (field and pre-1.30 annotation), never unconfined", () => {
    expect(sc.appArmorProfile).toEqual({ type: "Localhost", localhostProfile: PROFILE_NAME });
    expect(ds.spec.template.metadata.annotations["container.apparmor.security.beta.kubernetes.io/profiler"]).toBe(`localhost/${PROFILE_NAME}`);
    expect(text).not.toMatch(/Unconfined|\/unconfined/);
  });

  test("tracefs and debugfs from the host at the same paths", () => {
    for (const p of ["/sys/kernel/tracing", "/sys/kernel/debug"]) {
      const m = mountAt(p);
      expect(volume(m.name).hostPath.path).toBe(p);
    }
  });

  test("one identity volume per node at RUNNER_IDENTITY_DIR (hostPath), handed to uid 65532 by an init container that can repeat it", () => {
    const m = mountAt(env.RUNNER_IDENTITY_DIR);
    expect(m.readOnly).toBeFalsy();
    expect(volume(m.name).hostPath.type).toBe("DirectoryOrCreate");
    const init = pod.initContainers.find((x: any) => x.volumeMounts.some((v: any) => v.name === m.name));
    // install -d sets owner and mode on an existing directory: no shell, and FOWNER lets root
    // chmod the directory once it belongs to 65532 (a second pod start; CHOWN alone fails there).
    expect(init.command).toEqual(["/usr/bin/install", "-d", "-o", "65532", "-g", "65532", "-m", "0700", env.RUNNER_IDENTITY_DIR]);
    expect(init.securityContext.capabilities).toEqual({ drop: ["ALL"], add: ["CHOWN", "FOWNER"] });
    expect(init.securityContext.allowPrivilegeEscalation).toBe(false);
  });

  test("the target list is a read-only ConfigMap at RUNNER_PROFILE_TARGETS_FILE, holding a valid list", () => {
    const file: string = env.RUNNER_PROFILE_TARGETS_FILE;
    const dir = file.slice(0, file.lastIndexOf("/"));
    const m = mountAt(dir);
    expect(m.readOnly).toBe(true);
    const cm = docs.find((d) => d.kind === "ConfigMap" && d.metadata.name === volume(m.name).configMap.name);
    const copy = join(mkdtempSync(join(tmpdir(), "deploy-k8s-")), "targets.json");
    writeFileSync(copy, cm.data[file.slice(dir.length + 1)]);
    const list = readTargetsFile(copy);
    expect(list.errors).toEqual([]);
    expect(list.targets.length).toBeGreaterThan(0);
  });

  test("the bootstrap token is a Secret file, never a literal", () => {
    expect(env.RUNNER_BOOTSTRAP_TOKEN).toBeUndefined();
    const file: string = env.RUNNER_BOOTSTRAP_TOKEN_FILE;
    const m = mountAt(file.slice(0, file.lastIndexOf("/")));
    expect(m.readOnly).toBe(true);
    expect(volume(m.name).secret.secretName).toBeTruthy();
    // Readable by the non-root supervisor: group-readable, and the pod's fsGroup is its group.
    expect(volume(m.name).secret.defaultMode).toBe(0o440);
    expect(pod.securityContext.fsGroup).toBe(sc.runAsGroup);
  });

  test("a private enrolment CA: RUNNER_CA_FILE and its ConfigMap mount are there to uncomment", () => {
    expect(text).toContain("# - {name: RUNNER_CA_FILE, value: /etc/runner-ca/ca.pem}");
    expect(text).toContain("# - {name: enrolment-ca, mountPath: /etc/runner-ca, readOnly: true}");
    expect(text).toMatch(/# +configMap: \{name: runner-profiler-ca\}/);
  });

  test("memory limit 512Mi, tunnel port 8443, instance id per node", () => {
    expect(c.resources.limits.memory).toBe("512Mi");
    expect(new URL(env.RUNNER_TUNNEL_URL).port).toBe("8443");
    expect(env.RUNNER_INSTANCE_ID).toEqual({ fieldRef: { fieldPath: "spec.nodeName" } });
  });

  test("no API permission: no Role/Binding of any kind, and no service-account token mounted", () => {
    expect(docs.filter((d) => /Role|Binding/.test(d.kind))).toEqual([]);
    const sa = docs.find((d) => d.kind === "ServiceAccount");
    expect(sa.automountServiceAccountToken).toBe(false);
    expect(pod.serviceAccountName).toBe(sa.metadata.name);
    expect(pod.automountServiceAccountToken).toBe(false);
  });
});
