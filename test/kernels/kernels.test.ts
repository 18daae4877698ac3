// ptop on the kernels users run: every kernel of MATRIX boots under QEMU with an initramfs of
// what ships (dist/ptop, dist/arm64/ptop) and runs the collector checks of test/live inside
// (scenarios.ts; on a kernel below ptop's floor, the refusal at start). One boot per kernel; each
// check is its own test, named by kernel and arch. Skipped, saying why, without QEMU or the built
// collectors; RUNNER_REQUIRE_LIVE=1 (CI) turns every such skip into a failure. Time per guest:
// printed, and written to .test-results/kernels.json.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { REPO_ROOT } from "../helpers/runner-bin.ts";
import { describeUnless } from "../helpers/skip.ts";
import { bootGuest, type GuestResult } from "./boot.ts";
import { fetchKernel, type FetchedKernel } from "./fetch.ts";
import { buildInitramfs } from "./initramfs.ts";
import { ARCH, CACHE_DIR, MATRIX, type MatrixKernel } from "./matrix.ts";
import { BELOW_FLOOR_SCENARIOS, SCENARIOS } from "./scenarios.ts";
import { NODE_SCENARIO } from "./guest-node.ts";

const required = process.env.RUNNER_REQUIRE_LIVE === "1";
const TIMEOUT_SEC = Number(process.env.RUNNER_KERNEL_TIMEOUT_SEC ?? 900);
/** RUNNER_KERNELS=name,name: only those guests (a developer's run; CI boots every one). */
const ONLY = process.env.RUNNER_KERNELS?.split(",").filter(Boolean);
/** RUNNER_KERNEL_SCENARIOS=name,name: only those scenarios in each guest (a developer's run). */
const ONLY_SCENARIOS = process.env.RUNNER_KERNEL_SCENARIOS?.split(",").filter(Boolean);
for (const name of ONLY ?? []) if (!MATRIX.some((k) => k.name === name)) throw new Error(`RUNNER_KERNELS: no kernel "${name}" in matrix.ts (${MATRIX.map((k) => k.name).join(", ")})`);

/** Why this kernel cannot be tested here, or null. */
function missing(k: MatrixKernel): string | null {
  const a = ARCH[k.arch];
  if (process.getuid?.() !== 0) return `not root (kernels are cached in ${CACHE_DIR})`;
  for (const tool of [a.qemu, "clang", "go", "apt-get", "dpkg-deb"])
    if (Bun.which(tool) === null) return `${tool} is not installed (apt-get install qemu-system-x86 qemu-system-arm clang golang-go)`;
  if (!existsSync(a.ptop)) return `${a.ptop} is not built (npm run build; the arm64 one is built with RUNNER_BUILD_ARM64=1 npm run build and needs gcc-aarch64-linux-gnu and libbpf-dev:arm64)`;
  return null;
}

const timings: Record<string, unknown>[] = [];
afterAll(() => {
  if (timings.length === 0) return;
  mkdirSync(resolve(REPO_ROOT, ".test-results"), { recursive: true });
  writeFileSync(resolve(REPO_ROOT, ".test-results/kernels.json"), `${JSON.stringify(timings, null, 2)}\n`);
});

for (const k of MATRIX.filter((k) => !ONLY || ONLY.includes(k.name))) {
  const why = missing(k);
  if (why) {
    if (required) {
      test(`${k.name}: can run here (RUNNER_REQUIRE_LIVE=1)`, () => {
        throw new Error(`kernel matrix guest ${k.name} cannot run: ${why}`);
      });
    } else {
      console.log(`kernels: skipping ${k.name}: ${why}`);
    }
  }

  const scenarios = (k.expect === "below-floor" ? BELOW_FLOOR_SCENARIOS : [...SCENARIOS, NODE_SCENARIO])
    .filter((s) => (!ONLY_SCENARIOS || ONLY_SCENARIOS.includes(s.name)) && (!s.arches || s.arches.includes(k.arch)));
  describeUnless(why)(`${k.name} (${k.why})`, () => {
    let work = "";
    let kernel: FetchedKernel | undefined;
    let guest: GuestResult | undefined;
    let setupError: unknown;

    beforeAll(async () => {
      try {
        work = mkdtempSync(join(tmpdir(), `kernels-${k.arch}-`));
        const t0 = performance.now();
        kernel = fetchKernel(k);
        const extras = scenarios.flatMap((s) => (s.extra ? [s.extra(k.arch, work)] : []));
        const fetchSec = (performance.now() - t0) / 1000;
        const initramfs = buildInitramfs({ arch: k.arch, busybox: kernel.busybox, extras, scenarios, workDir: work });
        guest = await bootGuest({ arch: k.arch, vmlinuz: kernel.vmlinuz, initramfs, timeoutSec: TIMEOUT_SEC });
        mkdirSync(resolve(REPO_ROOT, ".test-results"), { recursive: true });
        writeFileSync(resolve(REPO_ROOT, `.test-results/kernels-${k.name}.console.txt`), guest.console);
        const phases = Object.fromEntries([...guest.times].map(([n, [a, b]]) => [n, Number((b - a).toFixed(1))]));
        timings.push({ kernel: k.name, pkg: kernel.pkg, accel: guest.accel, fetch_sec: Number(fetchSec.toFixed(1)),
          guest_sec: Number(guest.seconds.toFixed(1)), scenarios_sec: phases });
        console.log(`kernels: ${k.name} ${kernel.pkg} (${guest.uname}) under ${guest.accel.toUpperCase()}: ` +
          `guest ${guest.seconds.toFixed(1)} s (fetch ${fetchSec.toFixed(1)} s); scenarios ${JSON.stringify(phases)}; ` +
          `warm-up capture (guest/init.sh) ${guest.warmup || "printed nothing"}`);
      } catch (e) {
        setupError = e;
      }
    }, (TIMEOUT_SEC + 120) * 1000);
    afterAll(() => {
      if (work) rmSync(work, { recursive: true, force: true });
    });

    test("boots the kernel, runs every scenario and powers off in time", () => {
      if (setupError) throw setupError;
      if (!guest) throw new Error("no guest");
      const tail = guest.console.split("\n").slice(-40).join("\n");
      expect({ timedOut: guest.timedOut, complete: guest.complete, tail: guest.complete ? "" : tail })
        .toEqual({ timedOut: false, complete: true, tail: "" });
      expect(guest.uname).toStartWith(kernel!.release);
      expect([...guest.sections.keys()]).toEqual(scenarios.map((s) => s.name));
    });

    for (const s of scenarios) {
      for (const c of s.checks) {
        test(`${s.name}: ${c.name}`, () => {
          const section = guest?.sections.get(s.name);
          if (!section) throw new Error(`scenario ${s.name} produced no output (see the boot test)`);
          c.check(section);
        });
      }
    }
  });
}
