// ptop's refusals: it re-reads and strictly validates the operator's target list, refuses any
// workload it does not name (exit 3), checks its own capabilities (exit 5), and reports a
// workload that is not running (exit 4) after a complete header/probes/summary stream.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import {
  buildHotloop, cleanup, ptopSource, runPtop, setcapPtop, sharedTempDir, sleep, spawnAsNobody, writeTargets,
} from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();

function oneLine(stderr: string): string {
  const lines = stderr.trim().split("\n");
  expect(lines.length).toBe(1);
  return lines[0]!;
}

describeUnless(whyNot([!live, NOT_ROOT]))("ptop target list and refusals (live)", () => {
  let dir = "";
  let ptop = "";
  let hotloop = "";
  beforeAll(() => {
    dir = sharedTempDir("ptop-targets-");
    ptop = setcapPtop(dir);
    hotloop = buildHotloop(dir);
  });
  afterAll(() => cleanup(dir));

  test("a running workload the list does not name is refused (exit 3), nothing measured", async () => {
    const work = spawnAsNobody([hotloop, "1", "10"]);
    try {
      await sleep(200);
      const targets = writeTargets(dir, { targets: [{ workload: "nginx" }] }, "other.json");
      const run = await runPtop(ptop, ["--targets", targets, "--workload", "hotloop", "--duration", "2"]);
      expect(run.exitCode).toBe(PTOP_EXIT.refused);
      expect(run.stdout).toBe("");
      expect(oneLine(run.stderr)).toContain('workload "hotloop" is not in the target list');
    } finally {
      work.kill("SIGTERM");
      await work.exited;
    }
  });

  test("a namespace the list does not allow is refused", async () => {
    const targets = writeTargets(dir, { targets: [{ workload: "hotloop", namespace: "payments" }] }, "ns.json");
    const run = await runPtop(ptop, ["--targets", targets, "--workload", "hotloop", "--namespace", "billing", "--duration", "1"]);
    expect(run.exitCode).toBe(PTOP_EXIT.refused);
    expect(oneLine(run.stderr)).toContain('in namespace "billing"');
  });

  const invalid: Array<[string, string, string]> = [
    ["unknown top-level key", JSON.stringify({ targets: [{ workload: "hotloop" }], comment: "x" }), 'unknown key "comment"'],
    ["unknown target key", JSON.stringify({ targets: [{ workload: "hotloop", pid: 1 }] }), 'unknown key "pid"'],
    ["empty targets", JSON.stringify({ targets: [] }), "empty"],
    ["asterisk workload", JSON.stringify({ targets: [{ workload: "*" }] }), '"*" is refused'],
    ["empty workload", JSON.stringify({ targets: [{ workload: "" }] }), "empty"],
    ["missing targets", JSON.stringify({}), "required"],
    ["duplicate key", '{"targets":[{"workload":"hotloop","workload":"x"}]}', "duplicate"],
    ["not JSON", "targets: [hotloop]", "expected"],
    ["trailing garbage", '{"targets":[{"workload":"hotloop"}]} {}', "trailing"],
    ["workload not a string", '{"targets":[{"workload":5}]}', "must be a string"],
  ];
  for (const [name, body, reason] of invalid) {
    test(`invalid target list refused: ${name}`, async () => {
      const targets = writeTargets(dir, body, "bad.json");
      const run = await runPtop(ptop, ["--targets", targets, "--workload", "hotloop", "--duration", "1"]);
      expect(run.exitCode).toBe(PTOP_EXIT.refused);
      expect(run.stdout).toBe("");
      expect(oneLine(run.stderr)).toContain(reason);
    });
  }

  test("a missing target list is refused", async () => {
    const run = await runPtop(ptop, ["--targets", join(dir, "absent.json"), "--workload", "hotloop"]);
    expect(run.exitCode).toBe(PTOP_EXIT.refused);
    expect(oneLine(run.stderr)).toContain("cannot open target list");
  });

  test("a list whose size shows only when read (a /proc file, stat size 0) is refused past the cap", async () => {
    const run = await runPtop(ptop, ["--targets", "/proc/kallsyms", "--workload", "hotloop", "--duration", "1"]);
    expect(run.exitCode).toBe(PTOP_EXIT.refused);
    expect(oneLine(run.stderr)).toContain("is larger than 1048576 bytes");
  });

  test("usage errors exit 2 with one line", async () => {
    const targets = writeTargets(dir, { targets: [{ workload: "hotloop" }] });
    for (const args of [["--workload", "hotloop"], ["--targets", targets, "--workload", "hotloop", "--probes", "gpu"],
      ["--targets", targets, "--workload", "hotloop", "--frequency", "0"], ["--targets", targets, "--workload", "*"]]) {
      const run = await runPtop(ptop, args);
      expect(run.exitCode).toBe(PTOP_EXIT.usage);
      oneLine(run.stderr);
    }
  });

  test("without its capabilities ptop exits 5 naming each missing one", async () => {
    const bare = join(dir, "ptop-nocaps");
    copyFileSync(ptopSource(), bare);
    chmodSync(bare, 0o755);
    const targets = writeTargets(dir, { targets: [{ workload: "hotloop" }] });
    const run = await runPtop(bare, ["--targets", targets, "--workload", "hotloop", "--duration", "1"]);
    expect(run.exitCode).toBe(PTOP_EXIT.no_privilege);
    const line = oneLine(run.stderr);
    for (const cap of ["CAP_BPF", "CAP_PERFMON", "CAP_SYS_PTRACE", "CAP_DAC_READ_SEARCH", "CAP_SYS_ADMIN"]) expect(line).toContain(cap);
    // Four of five is still a refusal, naming the one that is missing.
    const four = setcapPtop(sharedTempDir("ptop-four-"), "cap_bpf,cap_perfmon,cap_sys_ptrace,cap_dac_read_search+ep");
    const run4 = await runPtop(four, ["--targets", targets, "--workload", "hotloop", "--duration", "1"]);
    expect(run4.exitCode).toBe(PTOP_EXIT.no_privilege);
    expect(oneLine(run4.stderr)).toContain("CAP_SYS_ADMIN");
    expect(run4.stderr).not.toContain("CAP_BPF");
    cleanup(join(four, ".."));
  });

  test("a listed workload that is not running exits 4 after header, probes and summary", async () => {
    const targets = writeTargets(dir, { targets: [{ workload: "no-such-workload-xyz" }] }, "absent-workload.json");
    const run = await runPtop(ptop, ["--targets", targets, "--workload", "no-such-workload-xyz", "--duration", "1", "--probes", "cpu"]);
    expect(run.exitCode).toBe(PTOP_EXIT.not_running);
    expect(run.records.map((r) => r.type)).toEqual(["header", "probe", "axis", "summary"]);
    expect(oneLine(run.stderr)).toContain("no process of workload");
  });

  test("a workload named by a later entry of a several-entry list is accepted (not refused)", async () => {
    const body = '{ "targets" : [ { "workload" : "nginx" } ,\n { "namespace" : "x" , "workload" : "no-such-workload-xyz" } ] }';
    const targets = writeTargets(dir, body, "several.json");
    const run = await runPtop(ptop, ["--targets", targets, "--workload", "no-such-workload-xyz", "--namespace", "x", "--duration", "1", "--probes", "cpu"]);
    expect(run.exitCode).toBe(PTOP_EXIT.not_running);
    expect(oneLine(run.stderr)).toContain("no process of workload");
  });

  test("on a bare host a namespace-qualified target matches nothing (no service-account namespace file)", async () => {
    const work = spawnAsNobody([hotloop, "1", "10"]);
    try {
      await sleep(200);
      const targets = writeTargets(dir, { targets: [{ workload: "hotloop", namespace: "payments" }] }, "ns-only.json");
      const run = await runPtop(ptop, ["--targets", targets, "--workload", "hotloop", "--duration", "1", "--probes", "cpu"]);
      expect(run.exitCode).toBe(PTOP_EXIT.not_running);
      expect(run.records.filter((r) => r.type === "process")).toEqual([]);
    } finally {
      work.kill("SIGTERM");
      await work.exited;
    }
  });

  test("a process whose mount namespace holds a service-account namespace file matches its namespace", async () => {
    // The workload gets its own mount namespace with /var/run/secrets/kubernetes.io/serviceaccount/namespace,
    // as in a pod; ptop reads it through /proc/PID/root without following symlinks out of that root.
    const script = [
      "set -e",
      "mkdir -p /run/secrets && mount -t tmpfs none /run/secrets",
      "mkdir -p /run/secrets/kubernetes.io/serviceaccount",
      "printf payments > /run/secrets/kubernetes.io/serviceaccount/namespace",
      `exec setpriv --reuid=65534 --regid=65534 --clear-groups ${hotloop} 1 10`,
    ].join("; ");
    const work = Bun.spawn(["unshare", "-m", "--propagation", "private", "sh", "-c", script], { stdout: "pipe", stderr: "pipe" });
    try {
      await sleep(400);
      const targets = writeTargets(dir, { targets: [{ workload: "hotloop", namespace: "payments" }] }, "ns-pod.json");
      const run = await runPtop(ptop, ["--targets", targets, "--workload", "hotloop", "--namespace", "payments", "--duration", "1", "--probes", "cpu"]);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      const procs = run.records.filter((r) => r.type === "process");
      expect(procs.length).toBe(1);
      expect(procs[0]).toMatchObject({ pid: work.pid, namespace: "payments" });
    } finally {
      work.kill("SIGTERM");
      await work.exited;
    }
  });
});
