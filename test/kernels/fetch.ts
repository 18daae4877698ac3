// Fetches a matrix kernel, the guest's busybox and Debian's python3.11 from Debian with `apt-get
// download` and unpacks what the guest needs (`dpkg-deb --fsys-tarfile` | tar): nothing is
// installed on the host.
// Kept in CACHE_DIR so a rerun boots at once; a clean CI machine fetches them (~130 MB, seconds).
import { join } from "node:path";
import { ARCH, CACHE_DIR, type GuestArch, type MatrixKernel } from "./matrix.ts";
import { aptDepends, unpackDebianPackage as unpack } from "../helpers/debian-packages.ts";

/** The linux-image package the metapackage currently depends on, e.g. linux-image-6.1.0-56-arm64:arm64. */
export function resolveKernelPackage(k: MatrixKernel): string {
  const out = aptDepends(k.metapackage, k.suite);
  const dep = out.match(/Depends:\s+(linux-image-\d\S*)/)?.[1];
  if (!dep) throw new Error(`apt-cache depends ${k.metapackage} names no linux-image package (apt-get update?):\n${out}`);
  return dep.includes(":") || k.arch === "amd64" ? dep : `${dep}:${k.arch}`;
}

/** Debian 12's CPython and what it needs to start with -S (no site module): the guest's Python
 *  scenario runs the interpreter users have, not one built here. */
const PYTHON_PACKAGES = ["python3.11-minimal", "libpython3.11-minimal", "libc6", "libexpat1", "zlib1g"];

/** Each package for arch unpacked whole into its own directory of the cache (once): the trees the
 *  initramfs merges into its root, where a program finds its loader and libraries at their usual
 *  paths. A name may end in /RELEASE, the release apt is to take it from (nodejs/bookworm: Debian's,
 *  where the host's index prefers another vendor's). */
export function packageTrees(arch: GuestArch, packages: string[]): string[] {
  return packages.map((p) => {
    const [name, release] = p.split("/");
    const dir = join(CACHE_DIR, `${name}-${arch}`);
    unpack(`${name}:${arch}${release ? `/${release}` : ""}`, dir, []);
    return dir;
  });
}

/** Debian's python3.11 trees for arch (the python scenario). */
export const fetchPython = (arch: GuestArch): string[] => packageTrees(arch, PYTHON_PACKAGES);

export interface FetchedKernel {
  /** e.g. linux-image-6.1.0-56-amd64 */
  pkg: string;
  /** e.g. 6.1.0-56-amd64 */
  release: string;
  vmlinuz: string;
  busybox: string;
}

export function fetchKernel(k: MatrixKernel): FetchedKernel {
  const pkg = resolveKernelPackage(k);
  const base = pkg.split(":")[0]!;
  const release = base.replace(/^linux-image-/, "");
  const kdir = join(CACHE_DIR, base);
  unpack(pkg, kdir, ["./boot"], k.suite);
  const bbPkg = ARCH[k.arch].busybox;
  const bdir = join(CACHE_DIR, `busybox-static-${k.arch}`);
  unpack(bbPkg, bdir, ["./bin/busybox"]);
  return { pkg: base, release, vmlinuz: join(kdir, "boot", `vmlinuz-${release}`), busybox: join(bdir, "bin/busybox") };
}
