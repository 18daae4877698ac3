// The C twin of python-progress-targets.ts: long-running CPU-bound targets built the way
// distributions build (-O2, no frame pointers), reporting their progress in the same format, so
// that the paired method of bench/ptop-python-overhead.ts (`--target c`) measures what ptop's
// unwinder costs a native program — the figure the default sampling frequency rests on.
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnProgressTargets, type ProgressTargets } from "./python-progress-targets.ts";

// top -> mid -> leaf, each kept a real call (noinline); a round is ~0.12 ms of integer work with a
// loop-carried dependency (nothing to vectorize away). A line every `every` seconds.
const SOURCE = `#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(clockid_t c) { struct timespec t; clock_gettime(c, &t); return (double)t.tv_sec + (double)t.tv_nsec / 1e9; }
__attribute__((noinline)) static unsigned leaf(unsigned n) {
  unsigned s = 0;
  for (unsigned i = 0; i < n; i++) s = (s + i * 2654435761u) ^ (s >> 7);
  return s;
}
static volatile unsigned N = 200000; /* read each round: no call here is constant, none is hoisted out of the loop */
__attribute__((noinline)) static unsigned mid(void) { return leaf(N); }
__attribute__((noinline)) static unsigned top(void) { return mid(); }
int main(int argc, char **argv) {
  if (argc != 3) return 2;
  double end = now(CLOCK_MONOTONIC) + atof(argv[1]), every = atof(argv[2]);
  volatile unsigned sink = 0;
  long rounds = 0;
  double t = now(CLOCK_MONOTONIC), due = t;
  while (t < end) {
    sink += top();
    rounds++;
    t = now(CLOCK_MONOTONIC);
    if (t >= due) {
      printf("%.6f %.6f %ld\\n", t, now(CLOCK_PROCESS_CPUTIME_ID), rounds);
      fflush(stdout);
      due = t + every;
    }
  }
  return 0;
}
`;

/** Starts `count` targets named `name` (its own executable, so ptop finds them by name) as uid
 *  65534; each ends by itself after `lifetime` seconds should the bench die. */
export function startCTargets(dir: string, name: string, count: number, lifetime: number, every = 0.1): ProgressTargets {
  const src = join(dir, `${name}.c`);
  writeFileSync(src, SOURCE);
  const exe = join(dir, name);
  const cc = Bun.spawnSync(["cc", "-O2", "-fomit-frame-pointer", "-o", exe, src], { stderr: "pipe" });
  if (cc.exitCode !== 0) throw new Error(`cc failed: ${cc.stderr.toString()}`);
  chmodSync(exe, 0o755);
  return spawnProgressTargets([exe, String(lifetime), String(every)], count);
}
