// Waiting out a JVM's JIT warm-up before a capture (ptop-java, ptop-java-diff): while C1 and C2
// compile, their threads take samples of their own and the code a capture sees changes tier.
import { readdirSync, readFileSync } from "node:fs";
import { sleep } from "./ptop-harness.ts";

const QUIET_MAX_MS = 75_000;

/** CPU ticks the JVM's JIT compiler threads ("C1 CompilerThre", "C2 CompilerThre") have used. */
function jitTicks(pid: number): number {
  let ticks = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      if (!/^C[12] CompilerThre/.test(readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8"))) continue;
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // from field 3 (the name may hold spaces)
      ticks += Number(f[11]) + Number(f[12]); // utime, stime
    } catch {
      // a thread that ended
    }
  }
  return ticks;
}

/** At least minMs, then until C2 has compiled (and inlined) the hot code: the compiler threads used
 *  at most 20 ms in the last 5 s (at most 75 s in all). Under ptop-java's HTTP load the JIT works in
 *  bursts for 40 s or more (1–2 ticks a second, measured); a fixed 20 s wait left it at work on a
 *  loaded machine, and its samples took the service's own share to 87%. */
export async function waitForQuietJit(pid: number, minMs: number) {
  const start = Date.now();
  await sleep(minMs);
  let before = jitTicks(pid);
  while (Date.now() - start < QUIET_MAX_MS) {
    await sleep(5000);
    const now = jitTicks(pid);
    if (now - before <= 2) return;
    before = now;
  }
}
