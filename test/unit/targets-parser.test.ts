// The target list parser against every refusal the reference names, using the fixture files.
import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { readTargetsFile, validateDocument, type TargetList } from "../../src/profiler/targets.ts";

const fixture = (name: string) => resolve(import.meta.dir, "../fixtures/targets", name);

function errorsOf(name: string) {
  const list = readTargetsFile(fixture(name));
  expect(list.targets).toEqual([]);
  expect(list.errors.length).toBeGreaterThan(0);
  return list.errors;
}

describe("target list: accepted", () => {
  test("a valid list yields its targets, namespace kept, nothing else", () => {
    const list = readTargetsFile(fixture("accept/valid.json"));
    expect(list.errors).toEqual([]);
    expect(list.warnings).toEqual([]);
    expect(list.targets).toEqual([{ workload: "api" }, { workload: "worker", namespace: "payments" }]);
  });

  test("duplicates are reported with both paths but do not refuse", () => {
    const list = readTargetsFile(fixture("accept/duplicate-targets.json"));
    expect(list.errors).toEqual([]);
    expect(list.targets).toHaveLength(3);
    expect(list.warnings).toHaveLength(1);
    expect(list.warnings[0]!.path).toBe("$.targets[2]");
    expect(list.warnings[0]!.message).toContain("duplicate of $.targets[0]");
  });

  test("the same workload in two namespaces is not a duplicate", () => {
    const list: TargetList = { file: "x", targets: [], errors: [], warnings: [] };
    validateDocument({ targets: [{ workload: "api", namespace: "a" }, { workload: "api", namespace: "b" }, { workload: "api" }] } as never, list);
    expect(list.errors).toEqual([]);
    expect(list.warnings).toEqual([]);
  });
});

describe("target list: refused with the path of the offending element", () => {
  test("missing file", () => {
    const [e] = errorsOf("does-not-exist.json");
    expect(e!.path).toBe("$");
    expect(e!.message).toContain("file not found");
  });
  test("empty file", () => expect(errorsOf("refuse/empty-file.json")[0]!.message).toContain("empty"));
  test("targets missing", () => {
    const [e] = errorsOf("refuse/missing-targets.json");
    expect(e!.path).toBe("$.targets");
    expect(e!.message).toContain("missing");
    expect(e!.message).toContain("no default meaning every process");
  });
  test("targets empty", () => {
    const [e] = errorsOf("refuse/empty-targets.json");
    expect(e!.path).toBe("$.targets");
    expect(e!.message).toContain("is empty");
  });
  test("targets not an array", () => {
    const [e] = errorsOf("refuse/targets-not-array.json");
    expect(e!.path).toBe("$.targets");
    expect(e!.message).toContain("must be an array");
    expect(e!.at).toBe("line 1, column 3");
  });
  test("a single asterisk workload", () => {
    const errors = errorsOf("refuse/star-workload.json");
    expect(errors).toHaveLength(1);
    expect(errors[0]!.path).toBe("$.targets[1].workload");
    expect(errors[0]!.message).toContain('"*"');
  });
  test("an empty workload", () => expect(errorsOf("refuse/empty-workload.json")[0]!.path).toBe("$.targets[0].workload"));
  test("a missing workload", () => {
    const [e] = errorsOf("refuse/missing-workload.json");
    expect(e!.path).toBe("$.targets[0].workload");
    expect(e!.message).toContain("missing");
  });
  test("unknown top-level key", () => {
    const [e] = errorsOf("refuse/unknown-top-key.json");
    expect(e!.path).toBe("$.version");
    expect(e!.message).toContain('unknown key "version"');
  });
  test("a comment key is an unknown key too", () => {
    const [e] = errorsOf("refuse/comment-key.json");
    expect(e!.path).toBe("$.comment");
    expect(e!.message).toContain("comments are not allowed");
  });
  test("unknown key inside a target", () => expect(errorsOf("refuse/unknown-target-key.json")[0]!.path).toBe("$.targets[0].pid"));
  test("a comment key in a later target", () => expect(errorsOf("refuse/nested-comment.json")[0]!.path).toBe("$.targets[1].comment"));
  test("workload of the wrong type", () => {
    const [e] = errorsOf("refuse/workload-not-string.json");
    expect(e!.path).toBe("$.targets[0].workload");
    expect(e!.message).toContain("must be a string");
    expect(e!.message).toContain("number");
  });
  test("namespace of the wrong type", () => expect(errorsOf("refuse/namespace-not-string.json")[0]!.path).toBe("$.targets[0].namespace"));
  test("a target that is not an object", () => expect(errorsOf("refuse/target-not-object.json")[0]!.path).toBe("$.targets[0]"));
  test("a document that is not an object", () => expect(errorsOf("refuse/top-not-object.json")[0]!.message).toContain("must be a JSON object"));
  test("invalid JSON names line and column", () => {
    const [e] = errorsOf("refuse/invalid-json.json");
    expect(e!.message).toContain("invalid JSON");
    expect(e!.message).toContain("trailing comma");
    expect(e!.at).toMatch(/^line 1, column \d+$/);
  });
  test("a key repeated in one object is refused (JSON.parse would keep the last silently)", () => {
    const [e] = errorsOf("refuse/duplicate-key.json");
    expect(e!.message).toContain('key "targets" appears twice');
  });
  test("__proto__ is an unknown key, and nothing is polluted", () => {
    const [e] = errorsOf("refuse/proto-key.json");
    expect(e!.path).toBe('$.targets[0]["__proto__"]');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  test("every problem is reported, not only the first", () => {
    const list: TargetList = { file: "x", targets: [], errors: [], warnings: [] };
    validateDocument({ targets: [{ workload: "*" }, { workload: 1 }, { wl: "a" }], extra: 1 } as never, list);
    const paths = list.errors.map((e) => e.path).sort();
    expect(paths).toEqual(["$.extra", "$.targets[0].workload", "$.targets[1].workload", "$.targets[2].wl", "$.targets[2].workload"]);
  });

  test("a namespace that is not a Kubernetes namespace name", () => {
    for (const ns of ["Payments", "*", "pay_ments", "-x", "a".repeat(64)]) {
      const list: TargetList = { file: "x", targets: [], errors: [], warnings: [] };
      validateDocument({ targets: [{ workload: "api", namespace: ns }] } as never, list);
      expect(list.errors.map((e) => e.path)).toEqual(["$.targets[0].namespace"]);
    }
    const ok: TargetList = { file: "x", targets: [], errors: [], warnings: [] };
    validateDocument({ targets: [{ workload: "api", namespace: "kube-system" }] } as never, ok);
    expect(ok.errors).toEqual([]);
  });

  test("a workload that is a path: no process name contains '/'", () => {
    const [e] = errorsOf("refuse/workload-path.json");
    expect(e!.path).toBe("$.targets[0].workload");
    expect(e!.message).toContain("not a path");
  });

  test("names are measured in bytes of UTF-8, as the kernel stores them (NAME_MAX = 255)", () => {
    const [e] = errorsOf("refuse/name-200-e-acute.json"); // 200 characters, 400 bytes
    expect(e!.message).toContain("400 bytes of UTF-8");
    expect(readTargetsFile(fixture("accept/name-255-bytes-utf8.json")).errors).toEqual([]);
  });
});

