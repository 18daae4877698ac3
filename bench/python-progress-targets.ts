// Long-running CPU-bound CPython targets that report their progress, for benches that compare
// periods with and without a tool on the SAME processes. A CPython loop's speed differs from one
// process to the next by up to ±15% on this machine (bench/RESULTS.md, "Python frames: overhead"),
// far more than the 1% a tool may cost, so a fair comparison keeps the processes and alternates
// the tool instead.
import { chmodSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NOBODY } from "../test/live/ptop-harness.ts";
import { forEachLine } from "../src/witness/read-lines.ts";

/** One progress line: CLOCK_MONOTONIC seconds, the process's CPU seconds, rounds done so far. */
export interface Progress { mono: number; cpu: number; rounds: number }

// Three nested Python functions (a stack of 5 frames), pure interpreter work, one thread; a line
// every `every` seconds (checked once per round, ~80 µs).
const SCRIPT = `import sys, time
def leaf(n):
    s = 0
    for i in range(n):
        s = (s + i) & 0xFFFF
    return s
def mid():
    return leaf(2000)
def top():
    return mid()
end = time.monotonic() + float(sys.argv[1])
every = float(sys.argv[2])
out = sys.stdout
rounds = 0
now = time.monotonic()
due = now
while now < end:
    top()
    rounds += 1
    now = time.monotonic()
    if now >= due:
        out.write("%.6f %.6f %d\\n" % (now, time.process_time(), rounds))
        out.flush()
        due = now + every
`;

export interface ProgressTargets {
  pids: number[];
  progress: Progress[][];
  stop(): Promise<void>;
}

/** Starts `count` targets named `name` (a symlink to Debian's python3, so ptop can find them by
 *  name) as uid 65534; each ends by itself after `lifetime` seconds should the bench die. */
export function startPythonTargets(dir: string, name: string, count: number, lifetime: number, every = 0.1): ProgressTargets {
  const script = join(dir, `${name}.py`);
  writeFileSync(script, SCRIPT);
  chmodSync(script, 0o644);
  const exe = join(dir, name);
  symlinkSync("/usr/bin/python3", exe);
  return spawnProgressTargets([exe, script, String(lifetime), String(every)], count);
}

/** `count` copies of cmd as uid 65534, each line of their output read as a Progress report. */
export function spawnProgressTargets(cmd: string[], count: number): ProgressTargets {
  const procs = Array.from({ length: count }, () => Bun.spawn([...NOBODY, ...cmd], { stdout: "pipe" }));
  const progress: Progress[][] = procs.map(() => []);
  const readers = procs.map((p, i) => readLines(p.stdout, (line) => {
    const [mono, cpu, rounds] = line.split(" ").map(Number);
    if (mono !== undefined && cpu !== undefined && rounds !== undefined && Number.isFinite(rounds)) progress[i]!.push({ mono, cpu, rounds });
  }));
  return {
    // setpriv execs the target, so the spawned pid is the target's own.
    pids: procs.map((p) => p.pid),
    progress,
    async stop() {
      for (const p of procs) p.kill("SIGKILL");
      await Promise.all(procs.map((p) => p.exited));
      await Promise.all(readers);
    },
  };
}

/** Each line of a child's output as it comes (the project's line splitter, decoded here). */
export function readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  return forEachLine(stream, (buf, start, end) => onLine(decoder.decode(buf.subarray(start, end))));
}

/** Rounds and CPU seconds of all targets between monotonic times a and b: for each target, from
 *  its first report at or after a to its last at or before b. `speeds[i]` are target i's rounds per
 *  CPU-second in each of its report intervals there (~0.1 s each): their upper quantiles are the
 *  loop's speed while nothing else disturbs it. The whole-period ratio also counts the dips that come and go (both
 *  targets at once, down to 55% of their usual speed for a second or two, with no other job on
 *  this VM, no steal time and no migration: contention on the host, not visible from inside), and
 *  those dips, not the tools, dominate its spread. */
export function progressBetween(targets: ProgressTargets, a: number, b: number) {
  let rounds = 0, cpu = 0, wall = 0;
  const speeds: number[][] = [];
  for (const reports of targets.progress) {
    const inside = reports.filter((r) => r.mono >= a && r.mono <= b);
    if (inside.length < 2) throw new Error(`a target reported fewer than 2 times between ${a.toFixed(2)} and ${b.toFixed(2)}`);
    const first = inside[0]!, last = inside[inside.length - 1]!;
    rounds += last.rounds - first.rounds;
    cpu += last.cpu - first.cpu;
    wall += last.mono - first.mono;
    speeds.push(inside.slice(1).map((r, i) => (r.rounds - inside[i]!.rounds) / (r.cpu - inside[i]!.cpu)));
  }
  return { rounds, cpu, wall, perCpu: rounds / cpu, speeds };
}
