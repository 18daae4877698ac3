// Builds a guest's initramfs: a gzipped newc cpio archive with busybox, the collector that ships
// for the architecture, the test workloads and ptop-watch (compiled static here), Debian's
// python3.11 with its loader and libraries at their usual paths, and /init,
// the busybox script that runs every scenario and prints what each one produced on the console.
// No root file system, no network, no modules: the Debian kernels have BPF, BTF, perf events,
// tracefs, tmpfs xattrs and their serial console built in.
import { chmodSync, lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { ARCH, type GuestArch } from "./matrix.ts";
import { guestScript, type GuestExtra, type Scenario } from "./scenarios.ts";

const HERE = import.meta.dir;
const WORKLOADS = resolve(HERE, "../fixtures/workloads");

type Entry =
  | { path: string; kind: "dir" }
  | { path: string; kind: "file"; data: Uint8Array; mode: number }
  | { path: string; kind: "symlink"; target: string }
  | { path: string; kind: "chardev"; major: number; minor: number };

/** The newc ("070701") cpio format the kernel unpacks: a 110-byte ASCII header, the name and the
 *  data, each padded to 4 bytes, and a TRAILER!!! entry. */
export function cpioNewc(entries: Entry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const enc = new TextEncoder();
  const pad = (n: number) => parts.push(new Uint8Array((4 - (n % 4)) % 4));
  let ino = 1;
  const put = (name: string, mode: number, data: Uint8Array, rdev = [0, 0]) => {
    const hex = (v: number) => v.toString(16).padStart(8, "0");
    const nameBytes = enc.encode(`${name}\0`);
    const fields = [ino++, mode, 0, 0, 1, 0, data.length, 0, 0, rdev[0]!, rdev[1]!, nameBytes.length, 0];
    const header = enc.encode(`070701${fields.map(hex).join("")}`);
    parts.push(header, nameBytes);
    pad(header.length + nameBytes.length);
    parts.push(data);
    pad(data.length);
  };
  for (const e of entries) {
    if (e.kind === "dir") put(e.path, 0o040755, new Uint8Array());
    else if (e.kind === "file") put(e.path, 0o100000 | e.mode, e.data);
    else if (e.kind === "symlink") put(e.path, 0o120777, enc.encode(e.target));
    else put(e.path, 0o020600, new Uint8Array(), [e.major, e.minor]);
  }
  put("TRAILER!!!", 0, new Uint8Array());
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/** Compiles a C source static for the guest's architecture; hotloop keeps frame pointers the
 *  way test/live builds it (clang keeps them in leaf functions too). */
function compileStatic(arch: GuestArch, src: string, out: string, extra: string[]): string {
  const r = Bun.spawnSync(["clang", ...ARCH[arch].clangTarget, "-static", "-O1", ...extra, src, "-o", out], { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`compiling ${src} for ${arch} failed: ${r.stderr.toString()}`);
  chmodSync(out, 0o755);
  return out;
}

/** A package tree's files, symlinks and directories as archive entries at the same paths, without
 *  what the guest never reads (documentation, locales, character-set converters). */
function treeEntries(root: string, omit: Set<string>): Entry[] {
  const out: Entry[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      if (path === ".done" || path === "usr/share" || name === "gconv" || omit.has(path)) continue;
      const st = lstatSync(join(root, path));
      if (st.isSymbolicLink()) out.push({ path, kind: "symlink", target: readlinkSync(join(root, path)) });
      else if (st.isDirectory()) {
        out.push({ path, kind: "dir" });
        walk(path);
      } else if (st.isFile()) out.push({ path, kind: "file", data: readFileSync(join(root, path)), mode: st.mode & 0o777 });
    }
  };
  walk("");
  return out;
}

/** a/b/c → the entries of a and a/b */
function parentDirs(path: string): Entry[] {
  const parts = path.split("/").slice(0, -1);
  return parts.map((_, i): Entry => ({ path: parts.slice(0, i + 1).join("/"), kind: "dir" }));
}

/** Merges the extras' trees and files: each path once (the first), each directory before what it
 *  holds (the kernel creates no parent). */
function mergeExtras(extras: GuestExtra[], existing: Entry[]): Entry[] {
  const seen = new Set(existing.map((e) => e.path));
  const entries = extras.flatMap((x) => {
    const omit = new Set(x.omit ?? []);
    const files = (x.files ?? []).flatMap((f): Entry[] => [
      ...parentDirs(f.path),
      { path: f.path, kind: "file", data: readFileSync(f.src), mode: 0o644 },
    ]);
    return [...x.trees.flatMap((t) => treeEntries(t, omit)), ...files];
  });
  return entries.filter((e) => !seen.has(e.path) && (seen.add(e.path), true));
}

/** Builds a Go program for the guest's architecture: static (no cgo), as Go builds by default. */
function compileGo(arch: GuestArch, src: string, out: string, workDir: string): string {
  const env = { ...process.env, GOOS: "linux", GOARCH: arch, CGO_ENABLED: "0", GO111MODULE: "off", GOFLAGS: "", HOME: workDir, GOCACHE: join(workDir, "gocache") };
  const r = Bun.spawnSync(["go", "build", "-o", out, src], { stderr: "pipe", env });
  if (r.exitCode !== 0) throw new Error(`go build ${src} for ${arch} failed: ${r.stderr.toString()}`);
  return out;
}

export interface GuestInputs {
  arch: GuestArch;
  busybox: string;
  /** what the scenarios add (Scenario.extra: Debian's python3.11, its JDK, …) */
  extras: GuestExtra[];
  scenarios: Scenario[];
  /** a scratch directory for the compiled programs and the archive */
  workDir: string;
}

/** Writes workDir/initramfs-ARCH.cpio.gz and returns its path. */
export function buildInitramfs(g: GuestInputs): string {
  const hotloop = compileStatic(g.arch, join(WORKLOADS, "hotloop.c"), join(g.workDir, `hotloop-${g.arch}`),
    ["-fno-omit-frame-pointer", "-mno-omit-leaf-frame-pointer", "-fno-inline", "-pthread"]);
  // The same workload without frame pointers: its stacks are whole only through ptop's CFI unwinder.
  const hotloopNoFp = compileStatic(g.arch, join(WORKLOADS, "hotloop.c"), join(g.workDir, `hotloop-nofp-${g.arch}`),
    ["-fomit-frame-pointer", "-fno-inline", "-pthread"]);
  // The locks and alloc axes' workloads, built as test/live builds them (no frame pointers).
  const lockwait = compileStatic(g.arch, join(WORKLOADS, "lockwait.c"), join(g.workDir, `lockwait-${g.arch}`),
    ["-fomit-frame-pointer", "-fno-inline", "-fno-optimize-sibling-calls", "-pthread"]);
  const allocratio = compileStatic(g.arch, join(WORKLOADS, "allocratio.c"), join(g.workDir, `allocratio-${g.arch}`),
    ["-O2", "-fomit-frame-pointer"]);
  // A worker that exec's itself (same pid): static-pie, so each image lies at a new address and
  // its samples need the table of that image (ptop's exec generations).
  const exitsym = compileStatic(g.arch, join(WORKLOADS, "exitsym_worker.c"), join(g.workDir, `exitsym-${g.arch}`),
    ["-static-pie", "-fomit-frame-pointer", "-fno-inline"]);
  const vdspin = compileStatic(g.arch, join(WORKLOADS, "unwind-vdso.c"), join(g.workDir, `vdspin-${g.arch}`),
    ["-fomit-frame-pointer"]);
  const allocgo = compileGo(g.arch, join(WORKLOADS, "allocgo.go"), join(g.workDir, `allocgo-${g.arch}`), g.workDir);
  const watch = compileStatic(g.arch, join(HERE, "guest/ptop-watch.c"), join(g.workDir, `ptop-watch-${g.arch}`), ["-Wall"]);
  const file = (path: string, src: string): Entry => ({ path, kind: "file", data: readFileSync(src), mode: 0o755 });
  const entries: Entry[] = [
    ...["bin", "dev", "proc", "sys", "tmp", "opt", "root"].map((path): Entry => ({ path, kind: "dir" })),
    { path: "dev/console", kind: "chardev", major: 5, minor: 1 },
    file("bin/busybox", g.busybox),
    { path: "bin/sh", kind: "symlink", target: "busybox" },
    file("opt/ptop", ARCH[g.arch].ptop),
    file("opt/hotloop", hotloop),
    file("opt/hotloop-nofp", hotloopNoFp),
    file("opt/lockwait", lockwait),
    file("opt/allocratio", allocratio),
    file("opt/allocgo", allocgo),
    file("opt/exitsym", exitsym),
    file("opt/vdspin", vdspin),
    file("opt/ptop-watch", watch),
    file("opt/py_shares.py", join(WORKLOADS, "py_shares.py")),
    { path: "init", kind: "file", data: new TextEncoder().encode(guestScript(g.scenarios)), mode: 0o755 },
  ];
  entries.push(...mergeExtras(g.extras, entries));
  const out = join(g.workDir, `initramfs-${g.arch}.cpio.gz`);
  writeFileSync(out, gzipSync(cpioNewc(entries), { level: 1 }));
  return out;
}
