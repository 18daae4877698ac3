// The CPython interpreters on this machine, set up so a non-root user can run them unchanged:
// Debian's python3, and pyenv's builds (under /root, which uid 65534 cannot enter) hard-linked
// into a world-readable directory (copied when /tmp is another file system). pyenv's binaries
// find their libpython through an absolute RUNPATH under /root, so LD_LIBRARY_PATH points at the
// linked copy; Python itself gets no flag and no change.
import { existsSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";

export const PYENV = "/root/.pyenv/versions";
/** Minor versions ptop supports; CI machines carry a pyenv build of each. */
export const SUPPORTED_MINORS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"];

export interface Interpreter {
  label: string;   // "3.12.1" or "debian-3.11"
  version: string; // "3.12.1"
  exe: string;     // what the workload runs (a symlink named after the workload)
  env: string[];   // extra environment (LD_LIBRARY_PATH for pyenv copies)
  workload: string;
}

/** A workload name of this run's own for one interpreter: ptop matches workloads by name
 * machine-wide (comm, exe or argv[0] basename), so a fixed name such as "pyw-3121" let a parallel
 * run of a Python test capture the other run's process beside its own. A comm is at most 15
 * characters: "py", a pid (at most 7 digits), "-" and the version's digits (at most 5) fit. */
export function ownWorkloadName(tag: string): string {
  const name = `py${process.pid}-${tag}`;
  if (name.length > 15) throw new Error(`workload name ${name} is longer than a comm's 15 characters`);
  return name;
}

function pythonVersion(bin: string, env: string[]): string {
  const r = Bun.spawnSync(["env", ...env, bin, "-c", "import platform; print(platform.python_version())"], { stdout: "pipe" });
  return r.stdout.toString().trim();
}

/** Links pyenv version `v` into dir (hard links; a copy across file systems). */
function linkPyenv(dir: string, v: string): string {
  const dest = join(dir, `py-${v}`);
  if (existsSync(dest)) return dest;
  let r = Bun.spawnSync(["cp", "-al", join(PYENV, v), dest], { stderr: "pipe" });
  if (r.exitCode !== 0) r = Bun.spawnSync(["cp", "-a", join(PYENV, v), dest], { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`copying ${v}: ${r.stderr.toString()}`);
  Bun.spawnSync(["chmod", "755", dest]);
  return dest;
}

/** Every CPython 3.8+ found (Debian's and pyenv's), ready to run as uid 65534 from dir. */
export function findInterpreters(dir: string, minMinor = 8): Interpreter[] {
  const out: Interpreter[] = [];
  if (existsSync("/usr/bin/python3")) {
    const version = pythonVersion("/usr/bin/python3", []);
    const workload = ownWorkloadName("deb");
    symlinkSync("/usr/bin/python3", join(dir, workload));
    out.push({ label: `debian-${version}`, version, exe: join(dir, workload), env: [], workload });
  }
  const versions = existsSync(PYENV) ? readdirSync(PYENV).filter((v) => /^3\.\d+\.\d+$/.test(v)) : [];
  for (const v of versions) {
    if (Number(v.split(".")[1]) < minMinor) continue;
    const root = linkPyenv(dir, v);
    const minor = v.split(".").slice(0, 2).join(".");
    const workload = ownWorkloadName(v.replaceAll(".", ""));
    symlinkSync(join(root, "bin", `python${minor}`), join(dir, workload));
    out.push({ label: v, version: v, exe: join(dir, workload), env: [`LD_LIBRARY_PATH=${join(root, "lib")}`], workload });
  }
  return out;
}

/** One pyenv interpreter of an unsupported version (3.6 or 3.7), if the machine has one. */
export function findUnsupported(dir: string): Interpreter | undefined {
  const versions = existsSync(PYENV) ? readdirSync(PYENV).filter((v) => /^3\.[67]\.\d+$/.test(v)) : [];
  const v = versions.sort().at(-1);
  if (!v) return undefined;
  const root = linkPyenv(dir, v);
  const workload = ownWorkloadName(`o${v.replaceAll(".", "")}`);
  symlinkSync(join(root, "bin", `python${v.split(".").slice(0, 2).join(".")}`), join(dir, workload));
  return { label: v, version: v, exe: join(dir, workload), env: [`LD_LIBRARY_PATH=${join(root, "lib")}`], workload };
}
