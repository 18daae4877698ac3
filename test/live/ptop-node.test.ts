// JavaScript functions in ptop's stacks of a Node.js HTTP service started with no flag, on every
// Node.js the machine has and on Node 18 and 22 fetched (fetched-nodes.ts), the service run as uid
// 65534 under load: >= 90% of its samples carry its own JS frames, and the two handler functions
// (applyDiscounts three times priceCart's loop work, both small enough for TurboFan to inline into
// the handler) take their constructed shares of the handler's samples within 5 points, named
// `applyDiscounts (node_shop_svc.js:LINE)`. Off-cpu: a node blocked in Atomics.wait in two named
// functions shows them in its offcpu stacks at their shares of the blocked time. A node whose V8
// ptop does not read is said so in the notes, its stacks native.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, realpathSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { liveAvailable, NOT_ROOT, REPO_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT, type SummaryRecord } from "../../src/protocol/profile-stream.ts";
import { NODE_SHOP_HOLD, nodeShopApplyAt, nodeShopHolds, nodeShopShares } from "./ptop-checks.ts";
import { NOBODY, cleanup, copyWorkload, framesById, runPtop, setcapPtop, sharedTempDir, sleep, stacksOf, writeTargets } from "./ptop-harness.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";
import { fetchNodes, type NodeUnderTest } from "./fetched-nodes.ts";

const live = liveAvailable();

/** Every distinct Node.js on the machine (not Bun's node shim): path and version. */
function machineNodes(): NodeUnderTest[] {
  const seen = new Map<string, string>();
  for (const name of ["node", "nodejs", "/usr/bin/node", "/usr/bin/nodejs", "/usr/local/bin/node"]) {
    const found = name.startsWith("/") ? name : Bun.which(name);
    if (!found) continue;
    let exe = "";
    try {
      exe = realpathSync(found);
    } catch {
      continue;
    }
    const r = Bun.spawnSync([exe, "-p", "typeof Bun === 'undefined' ? process.version : ''"], { stdout: "pipe", stderr: "ignore" });
    const version = r.stdout.toString().trim();
    if (r.exitCode === 0 && /^v\d+\./.test(version)) seen.set(exe, version);
  }
  return [...seen].map(([exe, version]) => ({ exe, version, command: [...NOBODY, "env", "HOME=/tmp", exe] }));
}

/** The machine's nodes, then Node 18 and 22 fetched (logged, not failed, when they cannot be
 *  fetched here and RUNNER_REQUIRE_LIVE is not set). */
function findNodes(): NodeUnderTest[] {
  const fetched = fetchNodes();
  for (const why of fetched.why) console.log(`ptop-node: skipping a fetched Node.js: ${why}`);
  return [...machineNodes(), ...fetched.nodes];
}

const nodes = live ? findNodes() : [];

describeUnless(whyNot([!live, NOT_ROOT], [nodes.length === 0, "needs a Node.js (none on PATH or in /usr/bin, /usr/local/bin)"]))("ptop JavaScript frames (live)", () => {
  let dir = "";
  let ptop = "";
  beforeAll(() => {
    dir = sharedTempDir("ptop-node-");
    ptop = setcapPtop(dir);
  }, 120_000);
  afterAll(() => cleanup(dir), 60_000);

  /** The service under load from this process (2 requests in flight, keep-alive) through a capture. */
  async function captureService(node: NodeUnderTest, seconds: number) {
    const src = copyWorkload(dir, "node_shop_svc.js");
    const port = 20000 + Math.floor(Math.random() * 20000);
    const title = `jsvc${process.pid % 100000}`; // the workload: ptop matches the process's comm
    const targets = writeTargets(dir, { targets: [{ workload: title }] }, `targets-${title}.json`);
    const proc = Bun.spawn([...node.command, src, String(port), title], { stdout: "pipe", stderr: "pipe" });
    let loading = true;
    const load = async () => {
      while (loading) {
        try {
          await (await fetch(`http://127.0.0.1:${port}/`)).text();
        } catch {
          await sleep(50);
        }
      }
    };
    const loaders = [load(), load()];
    try {
      await sleep(2500); // start-up, then the handler optimised
      const run = await runPtop(ptop, ["--targets", targets, "--workload", title, "--duration", String(seconds), "--frequency", "999", "--probes", "cpu"]);
      expect(proc.exitCode).toBeNull(); // the service ran through the capture, unharmed
      expect(run.records.flatMap((r) => (r.type === "process" ? [r.pid] : []))).toEqual([proc.pid]);
      return run;
    } finally {
      loading = false;
      proc.kill("SIGKILL");
      await proc.exited;
      await Promise.all(loaders);
    }
  }

  test(`the handler's functions at their constructed shares, on every Node.js here (${nodes.map((n) => n.version).join(", ")})`, async () => {
    for (const node of nodes) {
      const run = await captureService(node, 6);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      const seen = nodeShopShares(run.records);
      console.log(JSON.stringify({ node: node.version, ...seen }));
      expect({ node: node.version, ...nodeShopHolds(seen, 400) }).toEqual({ node: node.version, ...NODE_SHOP_HOLD, applyAt: nodeShopApplyAt() });
    }
  }, 60_000 * Math.max(1, nodes.length));

  test("a function TurboFan inlined is a frame of its own, on every Node.js whose V8 ptop reads inlining from", async () => {
    const script = copyWorkload(dir, "node_inline.js");
    // Node 18's V8 10 exports too little of its Code and deoptimization data to read inlining from
    // (README "JavaScript frames"): its inlined functions' time is their caller's.
    for (const node of nodes.filter((n) => !n.version.startsWith("v18."))) {
      const title = `jinl${process.pid % 100000}`;
      const targets = writeTargets(dir, { targets: [{ workload: title }] }, `targets-${title}.json`);
      const proc = Bun.spawn([...node.command, "--trace-turbo-inlining", script, title], { stdout: "pipe", stderr: "ignore" });
      const trace = new Response(proc.stdout).text();
      try {
        await sleep(1500);
        const run = await runPtop(ptop, ["--targets", targets, "--workload", title, "--duration", "2", "--frequency", "999", "--probes", "cpu"]);
        expect(proc.exitCode).toBeNull();
        expect(run.exitCode).toBe(PTOP_EXIT.ok);
        const frames = framesById(run.records);
        let outer = 0, inner = 0;
        for (const s of stacksOf(run.records, "cpu")) {
          const names = s.frames.map((id) => frames.get(id)!).filter((f) => f.kind === "jit" && f.module?.endsWith("/node_inline.js")).map((f) => f.function);
          const at = names.indexOf("outer");
          if (at < 0) continue;
          outer += s.value;
          if (names[at + 1] === "inner") inner += s.value;
        }
        proc.kill("SIGKILL");
        const inlined = /Inlining .*<SharedFunctionInfo inner>.* into .*<SharedFunctionInfo outer>/.test(await trace);
        console.log(JSON.stringify({ node: node.version, outerSamples: outer, withInner: Math.round((inner / Math.max(outer, 1)) * 1000) / 1000, inlined }));
        expect({ node: node.version, inlined, enough: outer >= 200, inner: inner / Math.max(outer, 1) >= 0.9 }).toEqual({ node: node.version, inlined: true, enough: true, inner: true });
      } finally {
        proc.kill("SIGKILL");
        await proc.exited;
      }
    }
  }, 30_000 * Math.max(1, nodes.length));

  test(`blocked in JS-initiated waits, the waiting JS functions carry the offcpu stacks, on every Node.js here`, async () => {
    const source = readFileSync(join(import.meta.dir, "../fixtures/workloads/node_offcpu.js"), "utf8").split("\n");
    const lineOf = (name: string) => source.findIndex((l) => l.startsWith(`function ${name}(`)) + 1;
    const script = copyWorkload(dir, "node_offcpu.js");
    for (const node of nodes) {
      const title = `joff${process.pid % 100000}`;
      const targets = writeTargets(dir, { targets: [{ workload: title }] }, `targets-${title}.json`);
      const proc = Bun.spawn([...node.command, script, title], { stdout: "ignore", stderr: "pipe" });
      try {
        await sleep(1000);
        const run = await runPtop(ptop, ["--targets", targets, "--workload", title, "--duration", "3", "--probes", "cpu,offcpu"]);
        expect(proc.exitCode).toBeNull();
        expect(run.exitCode).toBe(PTOP_EXIT.ok);
        const frames = framesById(run.records);
        // the main thread's blocked time: every stack but those of threads glibc started
        let main = 0, mine = 0, peer = 0, disk = 0;
        const at = new Set<string>();
        for (const s of stacksOf(run.records, "offcpu")) {
          const fs = s.frames.map((id) => frames.get(id)!);
          if (fs.some((f) => f.function === "start_thread")) continue;
          main += s.value;
          const own = fs.filter((f) => f.kind === "jit" && f.module?.endsWith("/node_offcpu.js"));
          for (const f of own) at.add(`${f.function}:${f.line}`);
          if (own.length > 0) mine += s.value;
          if (own.some((f) => f.function === "waitForPeer")) peer += s.value;
          if (own.some((f) => f.function === "waitForDisk")) disk += s.value;
        }
        const r = (x: number, of: number) => Math.round((x / Math.max(of, 1)) * 1000) / 1000;
        const seen = { node: node.version, blockedMs: Math.round(main / 1e6), own: r(mine, main), peer: r(peer, peer + disk), disk: r(disk, peer + disk) };
        console.log(JSON.stringify(seen));
        expect({
          node: node.version,
          blocked: seen.blockedMs >= 2000, // of the 3-s window
          ownFrames: seen.own >= 0.9,
          peer: Math.abs(seen.peer - 0.75) <= 0.05,
          disk: Math.abs(seen.disk - 0.25) <= 0.05,
          peerAt: at.has(`waitForPeer:${lineOf("waitForPeer")}`),
          diskAt: at.has(`waitForDisk:${lineOf("waitForDisk")}`),
        }).toEqual({ node: node.version, blocked: true, ownFrames: true, peer: true, disk: true, peerAt: true, diskAt: true });
      } finally {
        proc.kill("SIGKILL");
        await proc.exited;
      }
    }
  }, 30_000 * Math.max(1, nodes.length));

  test("under GC and deoptimisation churn every function named from the script is one of its own, at its line, or unknown", async () => {
    const script = readFileSync(join(import.meta.dir, "../fixtures/workloads/node_churn.js"), "utf8").split("\n");
    // The script's functions and the lines they start on, from its text.
    const lines = new Map(script.flatMap((l, i) => {
      const m = /^function (\w+)\(/.exec(l);
      return m ? [[m[1]!, i + 1] as const] : [];
    }));
    const title = `jchurn${process.pid % 100000}`;
    const targets = writeTargets(dir, { targets: [{ workload: title }] }, `targets-${title}.json`);
    const proc = Bun.spawn([...NOBODY, "env", "HOME=/tmp", nodes[0]!.exe, copyWorkload(dir, "node_churn.js"), title], { stdout: "ignore", stderr: "pipe" });
    try {
      await sleep(1500);
      const run = await runPtop(ptop, ["--targets", targets, "--workload", title, "--duration", "4", "--frequency", "999", "--probes", "cpu,offcpu"]);
      expect(proc.exitCode).toBeNull();
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      const frames = framesById(run.records);
      const mine = [...frames.values()].filter((f) => f.kind === "jit" && f.module?.endsWith("/node_churn.js"));
      const wrong = mine.filter((f) => !f.function.startsWith("(anonymous node_churn.js:") && lines.get(f.function) !== f.line);
      // an anonymous one only where the script has an anonymous function (an arrow, a function expression)
      const anonymous = mine.filter((f) => f.function.startsWith("(anonymous node_churn.js:") && !/=>|function\s*\(/.test(script[(f.line ?? 0) - 1] ?? ""));
      const samples = stacksOf(run.records, "cpu").reduce((t, s) => t + s.value, 0);
      const named = stacksOf(run.records, "cpu").filter((s) => s.frames.some((id) => mine.includes(frames.get(id)!))).reduce((t, s) => t + s.value, 0);
      const gone = [...frames.values()].filter((f) => f.function === "[js] <function gone>").length;
      console.log(JSON.stringify({ samples, named, functions: mine.map((f) => `${f.function}:${f.line}`), gone }));
      expect({ wrong, anonymous }).toEqual({ wrong: [], anonymous: [] });
      // the script's own functions are seen (their samples carry its frames)
      expect(["churn", "sumSquares"].every((f) => mine.some((m) => m.function === f))).toBe(true);
      expect(named / samples).toBeGreaterThan(0.5);
    } finally {
      proc.kill("SIGKILL");
      await proc.exited;
    }
  }, 60_000);

  test("a node whose V8 metadata ptop does not read, or that has none, is named in the notes, its stacks native", async () => {
    // Two programs called nodejs: one exports Node 20's V8 metadata as a build with pointer
    // compression would (4-byte tagged values), the other none at all. ptop must say so of each,
    // not read their stacks as V8's.
    const layout = readFileSync(join(REPO_ROOT, "native/ptop/fuzz/v8_seed_layout.c"), "utf8");
    expect(layout).toContain("v8dbg_SystemPointerSize = 8;");
    const loop = "int main(void) { volatile unsigned long x = 0; for (;;) x++; }\n";
    const build = (sub: string, source: string) => {
      mkdirSync(join(dir, sub), { recursive: true, mode: 0o755 });
      const src = join(dir, sub, "fakenode.c"), exe = join(dir, sub, "nodejs");
      writeFileSync(src, source);
      expect(Bun.spawnSync(["cc", "-O1", src, "-o", exe]).exitCode).toBe(0);
      return exe;
    };
    const compressed = build("compressed", `${layout.replace("v8dbg_SystemPointerSize = 8;", "v8dbg_SystemPointerSize = 4;")}\n${loop}`);
    const bare = build("bare", loop);
    const targets = writeTargets(dir, { targets: [{ workload: "nodejs" }] }, "targets-fakenode.json");
    const procs = [compressed, bare].map((exe) => Bun.spawn([...NOBODY, exe], { stdout: "ignore", stderr: "ignore" }));
    try {
      await sleep(300);
      const run = await runPtop(ptop, ["--targets", targets, "--workload", "nodejs", "--duration", "1", "--probes", "cpu"]);
      expect(run.exitCode).toBe(PTOP_EXIT.ok);
      const pids = run.records.flatMap((r) => (r.type === "process" ? [r.pid] : []));
      const summary = run.records.find((r): r is SummaryRecord => r.type === "summary")!;
      const noteOf = (pid: number) => summary.notes?.filter((n) => n.startsWith(`js frames: V8 not recognised (pid ${pid}): `)) ?? [];
      expect(noteOf(procs[0]!.pid)).toEqual([expect.stringContaining("pointer compression")]);
      expect(noteOf(procs[1]!.pid)).toEqual([expect.stringContaining("exports no V8 post-mortem metadata")]);
      for (const p of procs) {
        expect(pids).toContain(p.pid);
        expect(stacksOf(run.records, "cpu").filter((s) => s.pid === p.pid).length).toBeGreaterThan(0);
      }
    } finally {
      for (const p of procs) p.kill("SIGKILL");
      await Promise.all(procs.map((p) => p.exited));
    }
  }, 60_000);
});
