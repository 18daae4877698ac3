// `npm run build`: dist/runner (Bun single-file executable, bytecode, ESM) and dist/ptop (C + eBPF).
// --splitting keeps each role's lazily imported modules (the AWS SDK of the Agent, the web app, …)
// in their own chunks inside the executable, so a role loads only its own code: idle RSS of
// `runner server` 85 → 63 MiB, `runner --version` ~0.5 s → ~0.06 s on this machine.
// ptop needs clang, bpftool and libbpf/libelf headers; without them the build says so and, unless
// RUNNER_REQUIRE_PTOP=1, goes on so that the TypeScript side stays usable on any machine.
import { $ } from "bun";
import { accessSync, constants, existsSync, mkdirSync, rmSync, statSync } from "node:fs";

// A checkout owned by someone else (root, typically) cannot be built into: say what is missing and
// how to go on, instead of dying on EACCES with a stack trace halfway through.
function unwritable(): string | null {
  for (const path of [".", "dist", "native/ptop/build"]) {
    if (!existsSync(path)) continue;
    try {
      accessSync(path, constants.W_OK);
    } catch {
      return path;
    }
  }
  return null;
}
const blocked = unwritable();
if (blocked !== null) {
  const owner = statSync(blocked).uid;
  console.error(
    `build: cannot write ${blocked === "." ? "this checkout" : blocked} (${process.cwd()}) as uid ${process.getuid?.()}; it belongs to uid ${owner}.\n` +
      "  Build as the checkout's owner (`npm run build`), run the demo as root (`sudo npm run demo`), or use a copy of the checkout you own.",
  );
  process.exit(1);
}

mkdirSync("dist", { recursive: true });

const target = process.env.RUNNER_BUILD_TARGET; // e.g. bun-linux-arm64 for cross builds
const targetArgs = target ? ["--target", target] : [];
const outfile = process.env.RUNNER_BUILD_OUT ?? "dist/runner";
await $`${process.execPath} build --compile --bytecode --format=esm --splitting --minify-syntax --sourcemap=none ${targetArgs} src/cli.ts src/server/off-loop/worker.ts --outfile ${outfile}`;

if (existsSync("native/ptop/Makefile")) {
  // Bun.which: Bun's shell has no `command -v`. bpftool lives in /usr/sbin on Debian.
  const sbin = { PATH: `${process.env.PATH ?? ""}:/usr/sbin:/sbin` };
  const bpftool = Bun.which("bpftool", sbin);
  const haveToolchain = Bun.which("clang", sbin) !== null && bpftool !== null;
  if (haveToolchain) {
    const archArgs = process.env.PTOP_ARCH ? [`ARCH=${process.env.PTOP_ARCH}`] : [];
    // bpftool by its full path: a non-root PATH usually lacks /usr/sbin.
    const made = await quietMake([`BPFTOOL=${bpftool}`, ...archArgs]);
    if (made === 0) {
      await $`cp native/ptop/build/ptop dist/ptop`;
      console.log("build: dist/ptop");
    } else if (process.env.RUNNER_REQUIRE_PTOP === "1") throw new Error("building ptop failed (see make's output above)");
    else console.warn("build: ptop did not build (see make's output above); live tests will be skipped");
    // The arm64 collector only serves the arm64 kernel guests of test/kernels: built when asked
    // (RUNNER_BUILD_ARM64=1, as .ci/run does), never as a side effect of every build.
    if (made === 0 && !process.env.PTOP_ARCH && process.env.RUNNER_BUILD_ARM64 === "1") await buildArm64Ptop(bpftool);
  } else if (process.env.RUNNER_REQUIRE_PTOP === "1") {
    throw new Error("ptop needs clang, bpftool, libbpf-dev and libelf-dev (apt-get install clang bpftool libbpf-dev libelf-dev)");
  } else {
    console.warn("build: skipping dist/ptop (clang/bpftool not installed); live tests will be skipped");
  }
}

/**
 * make in native/ptop, its output kept unless it fails (or RUNNER_BUILD_VERBOSE=1): a successful
 * build printed ~130 compiler lines and the static link's glibc dlopen warning (from libdw's
 * optional debuginfod client) before the first line worth reading.
 */
async function quietMake(args: string[]): Promise<number> {
  const r = await $`make -C native/ptop ${args}`.nothrow().quiet();
  if (r.exitCode !== 0 || process.env.RUNNER_BUILD_VERBOSE === "1") {
    process.stderr.write(r.stdout);
    process.stderr.write(r.stderr);
  }
  return r.exitCode;
}

/** dist/arm64/ptop: the static arm64 collector the arm64 image ships, cross-built the same way
 *  (image/build.sh), so the arm64 kernel guests of test/kernels run what ships. Needs
 *  gcc-aarch64-linux-gnu and the arm64 -dev libraries ptop links (.ci/run's list). */
async function buildArm64Ptop(bpftool: string): Promise<void> {
  const crossLibbpf = "/usr/lib/aarch64-linux-gnu/libbpf.a";
  if (Bun.which("aarch64-linux-gnu-gcc") === null || !existsSync(crossLibbpf)) {
    if (process.env.RUNNER_REQUIRE_PTOP === "1") throw new Error(`dist/arm64/ptop needs aarch64-linux-gnu-gcc and ${crossLibbpf}`);
    console.warn("build: skipping dist/arm64/ptop (no arm64 cross toolchain); the arm64 kernel guests will be skipped");
    return;
  }
  const made = await quietMake([`BPFTOOL=${bpftool}`, "ARCH=arm64", "BUILD=build-arm64"]);
  if (made !== 0) {
    // e.g. one of the arm64 libraries ptop links (libdw, liblzma, libbz2: see .ci/run) is missing
    if (process.env.RUNNER_REQUIRE_PTOP === "1") throw new Error("cross-building the arm64 ptop failed (see make's output above)");
    console.warn("build: dist/arm64/ptop did not build (see make's output above); the arm64 kernel guests will be skipped");
    rmSync("dist/arm64/ptop", { force: true }); // not an older build in its place: the guests would test that
    return;
  }
  mkdirSync("dist/arm64", { recursive: true });
  await $`cp native/ptop/build-arm64/ptop dist/arm64/ptop`;
  console.log("build: dist/arm64/ptop");
}
