// Privilege discipline, observed from outside with strace: ptop opens the target's ELF files and
// perf map while privileged, then drops every capability and sets no_new_privs, and only then
// reads a single byte of them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { liveAvailable } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import { NOBODY, cleanup, copyWorkload, parseStream, setcapPtop, sharedTempDir, sleep, spawnAsNobody, writeTargets } from "./ptop-harness.ts";

const live = liveAvailable();
const required = process.env.RUNNER_REQUIRE_LIVE === "1";
const tools = Bun.which("strace") !== null && Bun.which("node") !== null;

describe.skipIf(!live || (!tools && !required))("ptop privilege drop (live, strace)", () => {
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
        ["strace", "-f", "-y", "-e", "trace=capset,prctl,read,pread64,openat2", "-o", log,
          ...NOBODY, ptop, "--targets", targets, "--workload", "node", "--duration", "1", "--probes", "cpu"],
        { stdout: "pipe", stderr: "pipe" },
      );
      expect(out.exitCode).toBe(PTOP_EXIT.ok);
      expect(parseStream(out.stdout.toString()).some((r) => r.type === "frame" && r.kind === "jit")).toBe(true);

      const lines = readFileSync(log, "utf8").split("\n");
      const nodeExe = realpathSync(Bun.which("node")!);
      const isTargetFile = (l: string) => l.includes(`<${nodeExe}>`) || /<\/tmp\/perf-\d+\.map>/.test(l);
      const drop = lines.findIndex((l) => l.includes("capset(") && l.includes("effective=0, permitted=0, inheritable=0"));
      const nnp = lines.findIndex((l) => l.includes("prctl(PR_SET_NO_NEW_PRIVS, 1"));
      const opens = lines.flatMap((l, i) => (l.includes("openat2(") && isTargetFile(l) ? [i] : []));
      const reads = lines.flatMap((l, i) => (/ (pread64|read)\(/.test(l) && isTargetFile(l) ? [i] : []));
      expect(drop).toBeGreaterThan(0);
      expect(nnp).toBeGreaterThan(drop);
      expect(opens.length).toBeGreaterThanOrEqual(2); // the node binary and its perf map
      expect(Math.max(...opens)).toBeLessThan(drop); // opened while privileged...
      expect(reads.length).toBeGreaterThan(0);
      expect(Math.min(...reads)).toBeGreaterThan(nnp); // ...parsed only without privileges
    } finally {
      node.kill("SIGKILL");
      await node.exited;
      rmSync(`/tmp/perf-${node.pid}.map`, { force: true });
    }
  }, 60_000);
});
