// The warning-level requirements: memory limit (cgroup v1 and v2 files), orchestrator
// credentials, a writable target list.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { checkMemory, readMemoryLimit } from "../../src/profiler/boot/memory.ts";
import { checkOrchestratorAccess } from "../../src/profiler/boot/orchestrator.ts";
import { checkTargets } from "../../src/profiler/boot/targets.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "deploy-checks-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cgroupTree(name: string, procSelfCgroup: string, files: Record<string, string>): { cgroup: string; root: string } {
  const root = join(dir, name);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  const cgroup = join(dir, `${name}.cgroup`);
  writeFileSync(cgroup, procSelfCgroup);
  return { cgroup, root };
}

describe("memory limit", () => {
  test("cgroup v1 with a 512m limit in a nested group", () => {
    const t = cgroupTree("v1", "9:memory:/docker/abc\n8:pids:/docker/abc\n", { "memory/docker/abc/memory.limit_in_bytes": "536870912\n" });
    const limit = readMemoryLimit(t.cgroup, t.root);
    expect(limit).toBe(536870912n);
    expect(checkMemory(limit)[0]).toMatchObject({ status: "pass", message: "memory limited to 512 MiB (the reference setup)" });
  });

  test("cgroup v1 unlimited (page-rounded LONG_MAX), read at the namespace root", () => {
    const t = cgroupTree("v1u", "4:cpu,memory:/\n", { "memory/memory.limit_in_bytes": "9223372036854771712\n" });
    expect(readMemoryLimit(t.cgroup, t.root)).toBeNull();
    expect(checkMemory(null)[0]!.status).toBe("warn");
  });

  test("cgroup v2 limited and unlimited", () => {
    const a = cgroupTree("v2", "0::/system.slice/profiler.service\n", { "system.slice/profiler.service/memory.max": "1073741824\n" });
    expect(readMemoryLimit(a.cgroup, a.root)).toBe(1073741824n);
    expect(checkMemory(1073741824n)[0]!.message).toContain("1024 MiB (reference setup: 512m)");
    const b = cgroupTree("v2max", "0::/\n", { "memory.max": "max\n" });
    expect(readMemoryLimit(b.cgroup, b.root)).toBeNull();
  });

  test("nothing readable: unknown, a warning", () => {
    expect(readMemoryLimit(join(dir, "none"), join(dir, "none"))).toBeUndefined();
    expect(checkMemory(undefined)[0]!.status).toBe("warn");
  });
});

describe("orchestrator credentials", () => {
  test("none mounted: pass; a service-account token: warned", () => {
    expect(checkOrchestratorAccess(false)[0]!.status).toBe("pass");
    expect(checkOrchestratorAccess(true)[0]).toMatchObject({ status: "warn", subject: "service account" });
    expect(checkOrchestratorAccess(true)[0]!.fix).toContain("automountServiceAccountToken: false");
  });
});

describe("target list mounted read-only", () => {
  test("a writable list boots with a warning; a read-only one without", () => {
    const file = join(dir, "targets.json");
    writeFileSync(file, '{"targets":[{"workload":"api"}]}');
    const w = checkTargets(file).findings.filter((f) => f.status === "warn");
    if (process.getuid?.() !== 0) {
      // root may write any file, so only a non-root run can see the read-only case
      chmodSync(file, 0o444);
      expect(checkTargets(file).findings.filter((f) => f.status === "warn")).toEqual([]);
    }
    expect(w).toHaveLength(1);
    expect(w[0]!.message).toContain("mount it read-only");
    expect(checkTargets(resolve(import.meta.dir, "../fixtures/targets/accept/valid.json")).findings.some((f) => f.status === "fail")).toBe(false);
  });
});
