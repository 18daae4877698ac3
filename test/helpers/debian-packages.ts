// Debian packages of any suite, downloaded with `apt-get download` and unpacked with `dpkg-deb
// --fsys-tarfile` | tar into a cache directory: nothing is installed on the host, and the host's
// apt sources and lists stay as they are (each other suite has an index of its own in the cache).
// Used by the kernel matrix (kernels, busybox, Python) and the Java tests (other JDKs).
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Where downloaded packages and their unpacked trees are kept between runs (outside the repo). */
export const CACHE_DIR = process.env.RUNNER_KERNEL_CACHE ?? "/var/cache/runner-kernels";

function sh(cmd: string[], cwd?: string): string {
  const r = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed (${r.exitCode}): ${r.stderr.toString().trim()}`);
  return r.stdout.toString();
}

/** apt options that read `suite` (another Debian release than the host's) from an index of its
 *  own in CACHE_DIR, updated once per run: the host's sources and lists stay as they are. */
const suitesUpdated = new Set<string>();
export function aptOptions(suite: string | undefined): string[] {
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

/** `apt-cache depends pkg` as read from `suite`'s index (the host's when none). */
export function aptDepends(pkg: string, suite?: string): string {
  return sh(["apt-cache", ...aptOptions(suite), "depends", pkg]);
}

/** Downloads pkg's .deb (`name[:arch][/release]`, from `suite` when given) into CACHE_DIR/debs (once) and unpacks `members`
 *  (all of it when none) into dir (once). Another suite's .debs are kept apart (debs-SUITE): the
 *  same package of two suites (libc6 of bookworm and trixie) must not be taken for one another. */
export function unpackDebianPackage(pkg: string, dir: string, members: string[], suite?: string): void {
  if (existsSync(join(dir, ".done"))) return;
  const debs = join(CACHE_DIR, suite ? `debs-${suite}` : "debs");
  mkdirSync(debs, { recursive: true });
  // pkg[:arch][/release]: a release picks the suite's version over an installed one of another origin
  const [, base, arch] = /^([^:/]+)(?::([^/]+))?/.exec(pkg)!;
  const find = () => readdirSync(debs).find((f) => f.startsWith(`${base}_`) && (!arch || f.endsWith(`_${arch}.deb`)));
  if (!find()) sh(["apt-get", ...aptOptions(suite), "download", "-q", pkg], debs);
  const deb = find();
  if (!deb) throw new Error(`apt-get download ${pkg} left no .deb in ${debs}`);
  const tmp = `${dir}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const tar = Bun.spawnSync(["sh", "-c", `d=$1; shift; dpkg-deb --fsys-tarfile "$0" | tar -x -C "$d" "$@"`, join(debs, deb), tmp, ...members], { stderr: "pipe" });
  if (tar.exitCode !== 0) throw new Error(`unpacking ${deb}: ${tar.stderr.toString().trim()}`);
  writeFileSync(join(tmp, ".done"), deb);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
}
