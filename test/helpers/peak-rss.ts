// A child's peak RSS (and CPU time) as the kernel counts it for that child alone.
//
// Why a python3 parent: a process spawned straight from Bun (or any large parent) inherits the
// parent's memory until it calls exec, and Linux carries that high-water mark across exec into the
// child's ru_maxrss. Measured: /bin/true spawned from a Bun process holding 200 MB reported
// 223 MiB; through this parent, 13.6 MiB. So a small python3 process spawns the command and reports
// RUSAGE_CHILDREN. Its own size (~14 MiB, see `floor`) is the lowest figure this method can give.
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PARENT = `import resource, subprocess, sys
code = subprocess.run(sys.argv[2:]).returncode
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%d %.6f" % (ru.ru_maxrss, ru.ru_utime + ru.ru_stime))
sys.exit(code)`;

export interface PeakRssRun {
  code: number;
  out: string;
  err: string;
  /** Peak resident set of the command (and any children it waited for), MiB. */
  maxRssMiB: number;
  /** User + system CPU seconds of the command and its waited-for children. */
  cpuSec: number;
}

type Io = "pipe" | "ignore" | "inherit";

/** Runs `cmd` under the python3 parent; stdout/stderr are captured as text unless "ignore"d. */
export async function runWithPeakRss(cmd: string[], opts: { stdout?: Io; stderr?: Io; env?: Record<string, string> } = {}): Promise<PeakRssRun> {
  const report = join(tmpdir(), `peak-rss-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const p = Bun.spawn(["python3", "-c", PARENT, report, ...cmd], { stdin: "ignore", stdout: opts.stdout ?? "pipe", stderr: opts.stderr ?? "pipe", ...(opts.env ? { env: opts.env } : {}) });
  const text = (s: unknown) => (s instanceof ReadableStream ? new Response(s).text() : Promise.resolve(""));
  const [out, err, code] = await Promise.all([text(p.stdout), text(p.stderr), p.exited]);
  let kb = NaN;
  let cpuSec = NaN;
  try {
    [kb, cpuSec] = readFileSync(report, "utf8").split(" ").map(Number) as [number, number];
  } finally {
    rmSync(report, { force: true });
  }
  return { code, out, err, maxRssMiB: kb / 1024, cpuSec };
}
