// Issue 30: a real A/A through the whole system with the default capture plan. Debian's own
// python3 (a distribution-built binary, stripped) runs test/fixtures/workloads/py_svc.py at one
// version; it is captured as "1.0.0" and then as "1.0.1" through the capture API by a Profiler (as
// nobody, with a setcap'd ptop), each a head and 4 replicates of the default 60 s (+5 s warm-up) at
// the default frequency and probes, and the server's diff on arrival gives the verdict. Root and
// BPF; about 11 minutes. Prints the verdict, its reason, and each axis's promise.
//   sudo bun bench/witness-real-aa.ts [replicates=4]
import { copyFileSync, chmodSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { findCollector } from "../src/demo/machine.ts";
import { OneMachine } from "../src/demo/one-machine.ts";

const replicates = Number(process.argv[2] ?? 4);
const collector = findCollector();
if (!collector) throw new Error("dist/ptop is not built (npm run build)");
const dir = mkdtempSync(join(tmpdir(), "witness-aa-"));
chmodSync(dir, 0o755);
// ptop matches workloads by name machine-wide: a name of this run's own.
const name = `aa-py-${process.pid}`.slice(0, 15);
const exe = join(dir, name);
symlinkSync("/usr/bin/python3", exe);
const script = join(dir, "py_svc.py");
copyFileSync(resolve(import.meta.dir, "../test/fixtures/workloads/py_svc.py"), script);
chmodSync(script, 0o644);

const m = new OneMachine({ dir, collectorSource: collector, targets: [name] });
const t0 = Date.now();
try {
  await m.setUp();
  await m.startProfiler("aa-node");
  await m.waitProfilerUp("aa-node");
  const proc = m.startWorkload(exe, [script, "1"]);
  await Bun.sleep(1500);
  let head = "";
  for (const version of ["1.0.0", "1.0.1"]) {
    for (let i = 0; i <= replicates; i++) {
      const q = await m.queue({ workload: name, version, env: "aa", kind: i === 0 ? "head" : "replicate" });
      if (q.status !== 202) throw new Error(`refused: ${q.status} ${JSON.stringify(q.body)}`);
      const id = String(q.body.request_id);
      if (version === "1.0.1" && i === 0) head = id;
      const r = await m.waitDone(id, 180_000);
      console.log(`${version} ${i === 0 ? "head" : "replicate"} ${id}: ${String(r.outcome)} ${r.reason ? String(r.reason) : ""}`);
    }
  }
  proc.kill("SIGTERM");
  // The last replicate re-runs the head's diff over every capture; wait for it.
  let out: { note: string; diff: { verdict: string; reason: string; axes_compared: { axis: string; promise: unknown; captures: unknown; dispersion: { run_to_run_cv: number } }[] } | null } | null = null;
  for (let k = 0; k < 120; k++) {
    out = JSON.parse(await m.admin("captures", "diff", head, "--json"));
    if (out?.note.includes(`${replicates} replicates) using ${replicates} replicates`)) break;
    await Bun.sleep(1000);
  }
  console.log(out?.note);
  console.log(`verdict: ${out?.diff?.verdict} — ${out?.diff?.reason}`);
  for (const a of out?.diff?.axes_compared ?? []) console.log(`  ${a.axis}: ${JSON.stringify(a.captures)} run-to-run CV ${(a.dispersion.run_to_run_cv * 100).toFixed(1)}% promise ${JSON.stringify(a.promise)}`);
  console.log(`(${Math.round((Date.now() - t0) / 1000)} s, ${new Date().toISOString()})`);
} finally {
  await m.tearDown();
}
