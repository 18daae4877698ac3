// The Java twin of c-progress-targets.ts: long-running CPU-bound JVMs (Debian's OpenJDK 17, no
// flag) reporting their progress in the same format, so that the paired method of
// bench/ptop-python-overhead.ts (`--target java`) measures what the HotSpot walk costs a busy JVM
// (README "Java frames"). Time is System.nanoTime (CLOCK_MONOTONIC on Linux, the bench's clock),
// CPU the process's (com.sun.management's getProcessCpuTime: the JIT's threads too, idle once the
// loop is compiled; the bench starts measuring after a warm-up).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnProgressTargets, type ProgressTargets } from "./python-progress-targets.ts";

const JDK = "/usr/lib/jvm/java-17-openjdk-amd64";

// top -> mid -> leaf, the same integer loop as the C target's; C2 compiles (and may inline) them.
const SOURCE = `import java.lang.management.ManagementFactory;
public final class JavaProgress {
  static volatile int n = 200000;
  static int leaf(int n) { int s = 0; for (int i = 0; i < n; i++) s = (s + i * 0x9E3779B1) ^ (s >>> 7); return s; }
  static int mid() { return leaf(n); }
  static int top() { return mid(); }
  public static void main(String[] a) {
    com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long end = System.nanoTime() + (long) (Double.parseDouble(a[0]) * 1e9), every = (long) (Double.parseDouble(a[1]) * 1e9);
    int sink = 0;
    long rounds = 0, t = System.nanoTime(), due = t;
    while (t < end) {
      sink += top();
      rounds++;
      t = System.nanoTime();
      if (t >= due) {
        System.out.println(String.format("%.6f %.6f %d", t / 1e9, os.getProcessCpuTime() / 1e9, rounds + (sink & 0)));
        due = t + every;
      }
    }
  }
}
`;

/** Starts `count` JVMs whose argv[0] is `name` (ptop finds them by it) as uid 65534. */
export function startJavaTargets(dir: string, name: string, count: number, lifetime: number, every = 0.1): ProgressTargets {
  const classes = join(dir, "java-classes");
  mkdirSync(classes, { recursive: true });
  const src = join(dir, "JavaProgress.java");
  writeFileSync(src, SOURCE);
  const javac = Bun.spawnSync([join(JDK, "bin/javac"), "-d", classes, src], { stderr: "pipe" });
  if (javac.exitCode !== 0) throw new Error(`javac failed: ${javac.stderr.toString()}`);
  return spawnProgressTargets(["bash", "-c", 'exec -a "$0" "$@"', name, join(JDK, "bin/java"), "-cp", classes, "JavaProgress",
    String(lifetime), String(every)], count);
}
