// Fetches a matrix kernel, the guest's busybox and Debian's python3.11 from Debian with `apt-get
// download` and unpacks what the guest needs (`dpkg-deb --fsys-tarfile` | tar): nothing is
// installed on the host.
// Kept in CACHE_DIR so a rerun boots at once; a clean CI machine fetches them (~130 MB, seconds).
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ARCH, CACHE_DIR, type GuestArch, type MatrixKernel } from "./matrix.ts";

function sh(cmd: string[], cwd?: string): string {
  const r = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed (${r.exitCode}): ${r.stderr.toString().trim()}`);
  return r.stdout.toString();
}

/** apt options that read `suite` (another Debian release than the host's) from an index of its
 *  own in CACHE_DIR, updated once per run: the host's sources and lists stay as they are. */
const suitesUpdated = new Set<string>();
function aptOptions(suite: string | undefined): string[] {
  if (!suite) return [];
  const dir = join(CACHE_DIR, `apt-${suite}`);
  const list = join(dir, "sources.list");
  const opts = ["-o", `Dir::Etc::SourceList=${list}`, "-o", "Dir::Etc::SourceParts=/nonexistent", "-o", `Dir::State::Lists=${join(dir, "lists")}`,
    "-o", `Dir::Cache=${join(dir, "cache")}`];
  if (!suitesUpdated.has(suite)) {
    mkdirSync(join(dir, "lists", "partial"), { recursive: true });
    mkdirSync(join(dir, "cache", "archives", "partial"), { recursive: true });
    writeFileSync(list, `deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian ${suite} main\n`);
    sh(["apt-get", "-q", ...opts, "update"]);
    suitesUpdated.add(suite);
  }
  return opts;
}

/** The linux-image package the metapackage currently depends on, e.g. linux-image-6.1.0-56-arm64:arm64. */
export function resolveKernelPackage(k: MatrixKernel): string {
  const out = sh(["apt-cache", ...aptOptions(k.suite), "depends", k.metapackage]);
  const dep = out.match(/Depends:\s+(linux-image-\d\S*)/)?.[1];
  if (!dep) throw new Error(`apt-cache depends ${k.metapackage} names no linux-image package (apt-get update?):\n${out}`);
  return dep.includes(":") || k.arch === "amd64" ? dep : `${dep}:${k.arch}`;
}

/** Downloads pkg's .deb (from `suite` when given) into CACHE_DIR/debs (once) and unpacks `members`
 *  (all of it when none) into dir (once). */
function unpack(pkg: string, dir: string, members: string[], suite?: string): void {
  if (existsSync(join(dir, ".done"))) return;
  const debs = join(CACHE_DIR, "debs");
  mkdirSync(debs, { recursive: true });
  const base = pkg.split(":")[0]!;
  const arch = pkg.split(":")[1];
  const find = () => readdirSync(debs).find((f) => f.startsWith(`${base}_`) && (!arch || f.endsWith(`_${arch}.deb`)));
  if (!find()) sh(["apt-get", ...aptOptions(suite), "download", "-q", pkg], debs);
  const deb = find();
  if (!deb) throw new Error(`apt-get download ${pkg} left no .deb in ${debs}`);
  const tmp = `${dir}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const tar = Bun.spawnSync(["sh", "-c", `d=$1; shift; dpkg-deb --fsys-tarfile "$0" | tar -x -C "$d" "$@"`, join(debs, deb), tmp, ...members], { stderr: "pipe" });
  if (tar.exitCode !== 0) throw new Error(`unpacking ${deb}: ${tar.stderr.toString().trim()}`);
  Bun.write(join(tmp, ".done"), deb);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
}

/** Debian 12's CPython and what it needs to start with -S (no site module): the guest's Python
 *  scenario runs the interpreter users have, not one built here. */
const PYTHON_PACKAGES = ["python3.11-minimal", "libpython3.11-minimal", "libc6", "libexpat1", "zlib1g"];

/** Each Python package for arch unpacked whole into its own directory (once): the trees the
 *  initramfs merges into its root, where the interpreter finds its loader, libraries and stdlib. */
export function fetchPython(arch: GuestArch): string[] {
  return PYTHON_PACKAGES.map((p) => {
    const dir = join(CACHE_DIR, `${p}-${arch}`);
    unpack(`${p}:${arch}`, dir, []);
    return dir;
  });
}

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
