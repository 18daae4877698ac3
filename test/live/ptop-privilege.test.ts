// Privilege discipline, observed from outside with strace: ptop opens the target's ELF files and
// perf map while privileged, then drops every capability and sets no_new_privs, and only then
// reads a single byte of them. Its ELF helper (a child) drops everything before it maps the
// interpreter files (python, node) the parent passes it (its parsers read them through that mapping); the parent reads the target's memory only
// after its drop.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, liveAvailable } from "../helpers/runner-bin.ts";
import { PTOP_EXIT, type StreamRecord } from "../../src/protocol/profile-stream.ts";
import {
  NOBODY, buildHotloop, cleanup, copyWorkload, parseStream, setcapPtop, sharedTempDir, sleep, spawnAsNobody, writeTargets,
} from "./ptop-harness.ts";
import { expectCapabilitiesDropped } from "./ptop-checks.ts";
import { describeUnless, testUnless, whyNot } from "../helpers/skip.ts";
import { NOT_ROOT } from "../helpers/runner-bin.ts";

/**
 * strace -f's lines, one per syscall: "PID syscall(...) = result". When another process of the
 * traced tree makes a syscall meanwhile, strace splits one into "PID name(args <unfinished ...>"
 * and, later, "PID <... name resumed>rest"; ptop is several processes, so the two halves are joined
 * here: otherwise the call's name and its result's path are never on one line, and the call is not
 * counted (one CI run counted a single target open where the parent makes three, as a split would).
 */
function straceLines(log: string): string[] {
  const pending = new Map<string, string>();
  const out: string[] = [];
  for (const l of log.split("\n")) {
    const m = /^(\d+) +(.*)$/.exec(l); // strace pads the pid to its width
    if (!m) continue;
    const [, pid, rest] = m as unknown as [string, string, string];
    const unfinished = / <unfinished \.\.\.>$/.exec(rest);
    if (unfinished) {
      pending.set(pid, rest.slice(0, unfinished.index));
      continue;
    }
    const resumed = /^<\.\.\. [\w]+ resumed>(.*)$/.exec(rest);
    const start = pending.get(pid);
    if (resumed && start !== undefined) {
      pending.delete(pid);
      out.push(`${pid} ${start}${resumed[1]}`);
    } else out.push(`${pid} ${rest}`);
  }
  return out;
}

/** strace -f lines grouped by process: "PID syscall(...)". The first pid is ptop itself. */
function byProcess(log: string): { main: string[]; children: Map<string, string[]> } {
  const lines = straceLines(log);
  const mainPid = lines[0]!.split(" ")[0]!;
  const children = new Map<string, string[]>();
  const main: string[] = [];
  for (const l of lines) {
    const pid = l.split(" ")[0]!;
    if (pid === mainPid) main.push(l);
    else children.set(pid, [...(children.get(pid) ?? []), l]);
  }
  return { main, children };
}

const dropIndex = (lines: string[]) => lines.findIndex((l) => l.includes("capset(") && l.includes("effective=0, permitted=0, inheritable=0"));
const nnpIndex = (lines: string[]) => lines.findIndex((l) => l.includes("prctl(PR_SET_NO_NEW_PRIVS, 1"));

const live = liveAvailable();
const required = process.env.RUNNER_REQUIRE_LIVE === "1";
const tools = Bun.which("strace") !== null && Bun.which("node") !== null;

describeUnless(whyNot([!live, NOT_ROOT], [!tools && !required, "needs strace and node"]))("ptop privilege drop (live, strace)", () => {
  let dir = "";
  let ptop = "";
  beforeAll(() => {
    dir = sharedTempDir("ptop-priv-");
    ptop = setcapPtop(dir);
  });
  afterAll(() => cleanup(dir));

  test("target ELF and perf-map bytes are read only after capset(0) and no_new_privs", async () => {
    const script = copyWorkload(dir, "hot-node.js");
    const node = spawnAsNobody(["node", "--perf-basic-prof", script, "20"], { cwd: dir });
    try {
      await sleep(2000);
      const targets = writeTargets(dir, { targets: [{ workload: "node" }] });
      const log = join(dir, "strace.log");
      const out = Bun.spawnSync(
        ["strace", "-f", "-y", "-e", "trace=capset,prctl,read,pread64,openat,openat2", "-o", log,
          ...NOBODY, ptop, "--targets", targets, "--workload", "node", "--duration", "1", "--probes", "cpu"],
        { stdout: "pipe", stderr: "pipe" },
      );
      expect(out.exitCode).toBe(PTOP_EXIT.ok);
      expect(parseStream(out.stdout.toString()).some((r) => r.type === "frame" && r.kind === "jit")).toBe(true);

      // strace -f prefixes each line with the pid: ptop is two processes, the privileged parent
      // (scans, opens) and the unwinder child (parses CFI); each is checked against its own drop.
      const lines = straceLines(readFileSync(log, "utf8"));
      const nodeExe = realpathSync(Bun.which("node")!);
      const isTargetFile = (l: string) => l.includes(`<${nodeExe}>`) || /<\/tmp\/perf-\d+\.map>/.test(l);
      const pids = [...new Set(lines.map((l) => l.split(" ")[0]!))];
      let opens = 0;
      let reads = 0;
      let dropped = 0;
      for (const pid of pids) {
        const own = lines.filter((l) => l.startsWith(`${pid} `));
        const drop = own.findIndex((l) => l.includes("capset(") && l.includes("effective=0, permitted=0, inheritable=0"));
        const nnp = own.findIndex((l) => l.includes("prctl(PR_SET_NO_NEW_PRIVS, 1"));
        const o = own.flatMap((l, i) => (l.includes("openat2(") && isTargetFile(l) ? [i] : []));
        const r = own.flatMap((l, i) => (/ (pread64|read)\(/.test(l) && isTargetFile(l) ? [i] : []));
        if (drop >= 0) {
          dropped++;
          expect(nnp).toBeGreaterThan(drop);
        }
        if (o.length) expect(Math.max(...o)).toBeLessThan(drop); // opened while privileged...
        if (r.length) {
          expect(drop).toBeGreaterThanOrEqual(0);
          expect(Math.min(...r)).toBeGreaterThan(nnp); // ...parsed only without privileges
        }
        opens += o.length;
        reads += r.length;
      }
      expect(dropped).toBeGreaterThanOrEqual(2); // the parent and the unwinder both drop
      expect(opens).toBeGreaterThanOrEqual(2); // the node binary and its perf map
      expect(reads).toBeGreaterThan(0);
    } finally {
      node.kill("SIGKILL");
      await node.exited;
      rmSync(`/tmp/perf-${node.pid}.map`, { force: true });
    }
  }, 60_000);

  test("ptop ran with the five capabilities and exited holding none, no_new_privs set (the kernel matrix's check)", async () => {
    const watch = join(dir, "ptop-watch");
    const cc = Bun.spawnSync(["cc", "-O2", "-o", watch, join(REPO_ROOT, "test/kernels/guest/ptop-watch.c")], { stderr: "pipe" });
    if (cc.exitCode !== 0) throw new Error(`building ptop-watch failed: ${cc.stderr.toString()}`);
    const hotloop = buildHotloop(dir);
    const work = spawnAsNobody([hotloop, "1", "10"]);
    try {
      await sleep(300);
      const targets = writeTargets(dir, { targets: [{ workload: "hotloop" }] }, "hotloop.json");
      const status = join(dir, "ptop.status");
      const out = Bun.spawnSync([watch, "run", status, "--", ptop, "--targets", targets, "--workload", "hotloop", "--duration", "1", "--probes", "cpu"],
        { stdout: "pipe", stderr: "pipe" });
      expect({ exit: out.exitCode, stderr: out.stderr.toString() }).toEqual({ exit: PTOP_EXIT.ok, stderr: "" });
      expect(parseStream(out.stdout.toString()).at(-1)?.type).toBe("summary");
      expectCapabilitiesDropped(readFileSync(status, "utf8"));
    } finally {
      work.kill("SIGTERM");
      await work.exited;
    }
  }, 60_000);

  /** An interpreter's run under strace: the helper maps the interpreter's file only after its own
   *  drop, the parent opens /proc/PID/mem while privileged and reads it only after its drop, and a
   *  frame of the interpreted language is named (so the memory was read). */
  async function interpreterOrder(exe: string, script: string, workload: string, named: (r: StreamRecord) => boolean) {
    const target = spawnAsNobody([exe, script], { cwd: dir });
    try {
      await sleep(1500);
      const targets = writeTargets(dir, { targets: [{ workload }] }, `targets-${workload}.json`);
      const log = join(dir, `strace-${workload}.log`);
      const out = Bun.spawnSync(
        ["strace", "-f", "-y", "-e", "trace=capset,prctl,read,pread64,mmap,openat,openat2", "-o", log,
          ...NOBODY, ptop, "--targets", targets, "--workload", workload, "--duration", "1", "--probes", "cpu"],
        { stdout: "pipe", stderr: "pipe" },
      );
      expect(out.exitCode).toBe(PTOP_EXIT.ok);
      expect(parseStream(out.stdout.toString()).some(named)).toBe(true);
      const { main, children } = byProcess(readFileSync(log, "utf8"));
      const isInterp = (l: string) => l.includes(`<${exe}>`);
      const isMem = (l: string) => /<\/proc\/\d+\/mem>/.test(l);
      // ptop reads the interpreter's bytes (native symbols) and the target's memory only unprivileged
      const interpReads = main.flatMap((l, i) => (/ (pread64|read)\(/.test(l) && isInterp(l) ? [i] : []));
      if (interpReads.length) expect(Math.min(...interpReads)).toBeGreaterThan(nnpIndex(main));
      const memReads = main.flatMap((l, i) => (/ pread64\(/.test(l) && isMem(l) ? [i] : []));
      const memOpen = main.findIndex((l) => l.includes("/mem") && /openat2?\(/.test(l));
      expect(memReads.length).toBeGreaterThan(0);
      expect(memOpen).toBeGreaterThan(0);
      expect(memOpen).toBeLessThan(dropIndex(main)); // opened privileged (the access check is at open)...
      expect(Math.min(...memReads)).toBeGreaterThan(nnpIndex(main)); // ...read without privileges
      // the helper: the interpreter file arrives as a descriptor and is mapped (its bytes read
      // through the mapping) only after its own drop
      const helper = [...children.values()].find((ls) => ls.some((l) => / mmap\(/.test(l) && isInterp(l)));
      expect(helper).toBeDefined();
      const firstRead = helper!.findIndex((l) => / mmap\(/.test(l) && isInterp(l));
      expect(dropIndex(helper!)).toBeGreaterThanOrEqual(0);
      expect(nnpIndex(helper!)).toBeGreaterThan(dropIndex(helper!));
      expect(firstRead).toBeGreaterThan(nnpIndex(helper!));
    } finally {
      target.kill("SIGKILL");
      await target.exited;
    }
  }

  testUnless(whyNot([!existsSync("/usr/bin/python3"), "needs /usr/bin/python3"]))("Python: the helper parses the interpreter only after its own drop; target memory is read after the parent's", async () => {
    const python = realpathSync("/usr/bin/python3");
    await interpreterOrder(python, copyWorkload(dir, "py_shares.py"), python.split("/").at(-1)!, (r) => r.type === "frame" && r.kind === "python" && r.function === "heavy");
  }, 60_000);

  testUnless(whyNot([!existsSync("/usr/bin/java"), "needs java (.ci/run installs openjdk-17-jdk-headless)"]))("Java: the JVM's memory is opened privileged and read only after the drops, by the unwinder child and by the report", async () => {
    const jvm = spawnAsNobody(["java", copyWorkload(dir, "HotJava.java"), "60"], { cwd: dir });
    try {
      await sleep(4000); // past the source launcher's compile and the JIT's first work
      const targets = writeTargets(dir, { targets: [{ workload: "java" }] }, "targets-java.json");
      const log = join(dir, "strace-java.log");
      const out = Bun.spawnSync(
        ["strace", "-f", "-y", "-e", "trace=capset,prctl,read,pread64,openat,openat2", "-o", log,
          ...NOBODY, ptop, "--targets", targets, "--workload", "java", "--duration", "2", "--probes", "cpu"],
        { stdout: "pipe", stderr: "pipe" },
      );
      expect(out.exitCode).toBe(PTOP_EXIT.ok);
      const records = parseStream(out.stdout.toString());
      expect(records.some((r) => r.type === "frame" && r.kind === "java" && r.function.startsWith("HotJava.javaHot"))).toBe(true);
      const { main, children } = byProcess(readFileSync(log, "utf8"));
      const isMem = (l: string) => new RegExp(`</proc/${jvm.pid}/mem>`).test(l);
      const isLibjvm = (l: string) => l.includes("/libjvm.so>");
      // the parent: opens the JVM's memory while privileged, reads it (names) only after its drop
      const memOpen = main.findIndex((l) => l.includes(`/proc/${jvm.pid}/mem`) && /openat2?\(/.test(l));
      expect(memOpen).toBeGreaterThan(0);
      expect(memOpen).toBeLessThan(dropIndex(main));
      const memReads = main.flatMap((l, i) => (/ pread64\(/.test(l) && isMem(l) ? [i] : []));
      expect(memReads.length).toBeGreaterThan(0);
      expect(Math.min(...memReads)).toBeGreaterThan(nnpIndex(main));
      const libReads = main.flatMap((l, i) => (/ (pread64|read)\(/.test(l) && isLibjvm(l) ? [i] : []));
      if (libReads.length) expect(Math.min(...libReads)).toBeGreaterThan(nnpIndex(main));
      // the unwinder child: the descriptor passed to it, read (the Java walk) only after its own drop
      const unwinder = [...children.values()].find((ls) => ls.some((l) => / pread64\(/.test(l) && isMem(l)));
      expect(unwinder).toBeDefined();
      const firstRead = unwinder!.findIndex((l) => / pread64\(/.test(l) && isMem(l));
      expect(dropIndex(unwinder!)).toBeGreaterThanOrEqual(0);
      expect(firstRead).toBeGreaterThan(nnpIndex(unwinder!));
      expect(unwinder!.some((l) => isMem(l) && /openat2?\(/.test(l))).toBe(false); // never opened there
    } finally {
      jvm.kill("SIGKILL");
      await jvm.exited;
    }
  }, 60_000);

  testUnless(whyNot([!existsSync("/usr/bin/node"), "needs /usr/bin/node"]))("Node.js: the helper parses node only after its own drop; target memory is read after the parent's", async () => {
    const node = realpathSync("/usr/bin/node");
    await interpreterOrder(node, copyWorkload(dir, "hot-node.js"), "node", (r) => r.type === "frame" && r.kind === "jit" && r.function === "nodeHotStringHash" && r.module?.endsWith("hot-node.js") === true);
  }, 60_000);
});
