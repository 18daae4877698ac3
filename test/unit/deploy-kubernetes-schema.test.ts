// Every document of the reference Kubernetes manifests, held against the Kubernetes 1.30 API
// types (the kubernetes-types package, generated from Kubernetes' OpenAPI definitions) by the
// TypeScript compiler: an unknown field anywhere (excess property), a wrong type or a missing
// required field fails. No cluster is needed; kubeconform/kubeval are not in Debian.
import { describe, expect, test, setDefaultTimeout } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/runner-bin.ts";

setDefaultTimeout(120_000);

// kind -> [module, type] in kubernetes-types.
const TYPES: Record<string, [string, string]> = {
  Namespace: ["core/v1", "Namespace"],
  ServiceAccount: ["core/v1", "ServiceAccount"],
  ConfigMap: ["core/v1", "ConfigMap"],
  Secret: ["core/v1", "Secret"],
  Pod: ["core/v1", "Pod"],
  DaemonSet: ["apps/v1", "DaemonSet"],
  Deployment: ["apps/v1", "Deployment"],
  StatefulSet: ["apps/v1", "StatefulSet"],
  Service: ["core/v1", "Service"],
};

/** tsc's diagnostics for `docs` typed as their kinds ("" when they conform). */
function typeCheck(docs: any[]): string {
  const dir = mkdtempSync(join(REPO_ROOT, ".k8s-schema-"));
  try {
    const lines = docs.map((d, i) => {
      const t = TYPES[d.kind];
      if (!t) throw new Error(`no API type mapped for kind ${d.kind}`);
      return `const doc${i}: import("kubernetes-types/${t[0]}").${t[1]} = ${JSON.stringify(d, null, 1)};\nvoid doc${i};`;
    });
    writeFileSync(join(dir, "manifests.ts"), `${lines.join("\n")}\nexport {};\n`);
    const compilerOptions = { noEmit: true, strict: true, exactOptionalPropertyTypes: true, target: "es2022", module: "esnext", moduleResolution: "bundler", types: [] };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["manifests.ts"] }));
    const tsc = join(REPO_ROOT, "node_modules/typescript/bin/tsc");
    const r = Bun.spawnSync([process.execPath, tsc, "-p", dir], { stdout: "pipe", stderr: "pipe", cwd: dir });
    return (r.stdout.toString() + r.stderr.toString()).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const docs = Bun.YAML.parse(readFileSync(join(REPO_ROOT, "image/kubernetes/daemonset.yaml"), "utf8")) as any[];

describe("reference Kubernetes manifests against the 1.30 API schema", () => {
  test("every document conforms (unknown fields rejected)", () => {
    expect(docs.map((d) => d.kind)).toEqual(["Namespace", "ServiceAccount", "ConfigMap", "DaemonSet"]);
    expect(typeCheck(docs)).toBe("");
  });

  test("the check fails on an unknown field, a misspelt one and a wrong type", () => {
    const ds = structuredClone(docs.find((d) => d.kind === "DaemonSet"));
    ds.spec.template.spec.securityContext.fsGroupp = 65532;
    ds.spec.template.spec.containers[0].securityContext.capabilities.addd = ["BPF"];
    ds.spec.template.spec.hostPID = "yes";
    const out = typeCheck([ds]);
    expect(out).toContain(`'"fsGroupp"' does not exist in type 'PodSecurityContext'`);
    expect(out).toContain(`'"addd"' does not exist in type 'Capabilities'`);
    expect(out).toContain("Type 'string' is not assignable to type 'boolean | undefined'"); // hostPID
  });

  test("the control plane's manifests (server.yaml) conform too", () => {
    const server = Bun.YAML.parse(readFileSync(join(REPO_ROOT, "image/kubernetes/server.yaml"), "utf8")) as any[];
    expect(server.map((d) => d.kind)).toEqual(["Namespace", "ServiceAccount", "Deployment", "Service", "StatefulSet", "Service"]);
    expect(typeCheck(server)).toBe("");
  });
});
