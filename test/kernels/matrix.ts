// The kernels ptop is tested on besides this machine's own (test/live): each boots under QEMU
// with an initramfs holding what ships (dist/ptop, dist/arm64/ptop). A kernel is named by the
// Debian package that depends on the current build of that series, resolved at run time with
// apt-cache, so a security update of the series is what gets tested.
import { REPO_ROOT } from "../helpers/runner-bin.ts";
import { resolve } from "node:path";

export type GuestArch = "amd64" | "arm64";

export interface MatrixKernel {
  /** what the report calls it, e.g. "debian12-6.1-amd64" */
  name: string;
  arch: GuestArch;
  /** Debian metapackage whose Depends names the current linux-image-X.Y.Z-N-ARCH */
  metapackage: string;
  /** who runs this kernel: the reason it is in the matrix */
  why: string;
  /** the Debian suite the metapackage comes from when it is not the host's own (bookworm):
   *  fetch.ts reads it through an apt configuration of its own, leaving the host's untouched */
  suite?: string;
  /** supported: every scenario of SCENARIOS; below-floor: older than ptop's minimum (5.15), where
   *  ptop must refuse at start naming what the kernel lacks (BELOW_FLOOR_SCENARIOS) */
  expect: "supported" | "below-floor";
}

export const MATRIX: MatrixKernel[] = [
  { name: "debian12-6.1-amd64", arch: "amd64", metapackage: "linux-image-amd64", why: "Debian 12; 6.1 is also Amazon Linux 2023's series", expect: "supported" },
  { name: "debian12-6.1-arm64", arch: "arm64", metapackage: "linux-image-arm64:arm64", why: "Debian 12 on arm64 (Graviton, Ampere)", expect: "supported" },
  { name: "debian13-6.12-amd64", arch: "amd64", metapackage: "linux-image-amd64", suite: "trixie", why: "Debian 13, the current stable", expect: "supported" },
  { name: "debian11-5.10-amd64", arch: "amd64", metapackage: "linux-image-amd64", suite: "bullseye", why: "Debian 11: below the 5.15 floor, refused at start by name", expect: "below-floor" },
];

export interface ArchTools {
  qemu: string;
  /** the collector that ships for this architecture */
  ptop: string;
  /** C compiler flags that target it (clang) */
  clangTarget: string[];
  /** the Debian busybox-static package for it */
  busybox: string;
  /** kernel command line for this architecture's console and quirks */
  append: string;
  machine: string[];
}

export const ARCH: Record<GuestArch, ArchTools> = {
  amd64: {
    qemu: "qemu-system-x86_64",
    ptop: resolve(REPO_ROOT, "dist/ptop"),
    clangTarget: ["--target=x86_64-linux-gnu"],
    busybox: "busybox-static:amd64",
    // no_timer_check: under TCG on a loaded host the IO-APIC timer check can miss its ticks and
    // panic ("IO-APIC + timer doesn't work!"), as seen here at load average 14.
    append: "console=ttyS0 no_timer_check",
    machine: ["-machine", "q35", "-cpu", "max"],
  },
  arm64: {
    qemu: "qemu-system-aarch64",
    ptop: resolve(REPO_ROOT, "dist/arm64/ptop"),
    clangTarget: ["--target=aarch64-linux-gnu"],
    busybox: "busybox-static:arm64",
    append: "console=ttyAMA0",
    machine: ["-machine", "virt", "-cpu", "max"],
  },
};

/** Where downloaded kernels and busybox packages are kept between runs (outside the repo). */
export { CACHE_DIR } from "../helpers/debian-packages.ts";
