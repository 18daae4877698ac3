// AppArmor for real: Debian 12's kernel (AppArmor built in and enabled by default) booted under
// QEMU with a busybox guest. The host compiles apparmor/runner-profiler and two stand-ins for the
// engines' default profiles — docker-default and cri-containerd.apparmor.d with the ptrace rule
// their templates have, `ptrace (trace,read,tracedby,readby) peer=<itself>` — plus a target
// profile that adds `ptrace (readby) peer=runner-profiler` (what docs/troubleshooting.md tells
// owners of such targets to add). The guest loads them through securityfs and reads each
// target's /proc/PID/{maps,exe,ns/pid,environ} from a process confined by runner-profiler, and
// from an unconfined one for comparison. What was measured is printed and asserted. The reader
// runs as root with the profile's `capability,` (the production ptop is uid 65532 with five file
// capabilities; AppArmor's ptrace mediation is the same for both, the DAC checks are not tested here).
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { REPO_ROOT } from "../helpers/runner-bin.ts";
import { bootGuest } from "./boot.ts";
import { fetchKernel } from "./fetch.ts";
import { cpioNewc } from "./initramfs.ts";
import { ARCH, MATRIX } from "./matrix.ts";

type Entry = Parameters<typeof cpioNewc>[0][number];
const required = process.env.RUNNER_REQUIRE_LIVE === "1";
const kernel = MATRIX.find((k) => k.arch === "amd64")!;
const why =
  process.getuid?.() !== 0 ? "not root" : [ARCH.amd64.qemu, "apparmor_parser", "clang", "apt-get", "dpkg-deb"].find((t) => Bun.which(t, { PATH: `${process.env.PATH}:/usr/sbin:/sbin` }) === null);
if (why && required) throw new Error(`RUNNER_REQUIRE_LIVE=1 but the AppArmor guest cannot run: ${why} missing`);
if (why) process.stderr.write(`apparmor guest: skipping (${why})\n`);

const HERE = join(REPO_ROOT, "test/kernels/apparmor");
/** The ptrace rule Docker's and containerd's default-profile templates give a profile P. */
const defaultLike = (name: string) => `#include <tunables/global>
profile ${name} flags=(attach_disconnected,mediate_deleted) {
  #include <abstractions/base>
  network,
  capability,
  file,
  umount,
  signal (receive) peer=unconfined,
  signal (send,receive) peer=${name},
  ptrace (trace,read,tracedby,readby) peer=${name},
}
`;
const readbyTarget = `#include <tunables/global>
profile target-readby flags=(attach_disconnected,mediate_deleted) {
  #include <abstractions/base>
  file,
  capability,
  ptrace (trace,read,tracedby,readby) peer=target-readby,
  ptrace (readby) peer=runner-profiler,
}
`;

function compile(path: string): Uint8Array {
  const r = Bun.spawnSync(["apparmor_parser", "-Q", "-K", "-M", "/usr/share/apparmor-features/features", "-S", path], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`apparmor_parser ${path}: ${r.stderr.toString()}`);
  return new Uint8Array(r.stdout);
}

describe.skipIf(!!why)("AppArmor under QEMU (Debian 12 kernel)", () => {
  test("what a collector confined by runner-profiler can read of targets under each profile", async () => {
    const work = mkdtempSync(join(tmpdir(), "apparmor-guest-"));
    try {
      const k = fetchKernel(kernel);
      const probe = join(work, "aa-probe");
      const cc = Bun.spawnSync(["clang", "-static", "-O2", "-Wall", "-o", probe, join(HERE, "aa-probe.c")], { stderr: "pipe" });
      if (cc.exitCode !== 0) throw new Error(`clang aa-probe.c: ${cc.stderr.toString()}`);
      const policies: [string, string][] = [
        ["docker-default", defaultLike("docker-default")],
        ["cri-containerd", defaultLike("cri-containerd.apparmor.d")],
        ["target-readby", readbyTarget],
      ];
      const entries: Entry[] = [
        ...["bin", "dev", "proc", "sys", "tmp", "opt", "opt/aa"].map((path): Entry => ({ path, kind: "dir" })),
        { path: "dev/console", kind: "chardev", major: 5, minor: 1 },
        { path: "bin/busybox", kind: "file", data: readFileSync(k.busybox), mode: 0o755 },
        { path: "bin/sh", kind: "symlink", target: "busybox" },
        { path: "init", kind: "file", data: readFileSync(join(HERE, "init.sh")), mode: 0o755 },
        { path: "opt/aa/aa-probe", kind: "file", data: readFileSync(probe), mode: 0o755 },
        { path: "opt/aa/runner-profiler.bin", kind: "file", data: compile(join(REPO_ROOT, "apparmor/runner-profiler")), mode: 0o644 },
      ];
      for (const [name, text] of policies) {
        writeFileSync(join(work, name), text);
        entries.push({ path: `opt/aa/${name}.bin`, kind: "file", data: compile(join(work, name)), mode: 0o644 });
      }
      const initramfs = join(work, "initramfs.cpio.gz");
      writeFileSync(initramfs, gzipSync(cpioNewc(entries), { level: 1 }));
      const boot = () => bootGuest({ arch: "amd64", vmlinuz: k.vmlinuz, initramfs, timeoutSec: Number(process.env.RUNNER_KERNEL_TIMEOUT_SEC ?? 600) });
      let g = await boot();
      // Once under heavy load the guest printed nothing at all (TCG): one more boot, said so.
      if (!g.console.includes("@@apparmor done")) {
        process.stderr.write(`apparmor guest: no output in ${g.seconds.toFixed(0)} s (exit ${g.exitCode}, timed out ${g.timedOut}); booting once more\n`);
        g = await boot();
      }
      const lines = g.console.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.startsWith("@@apparmor ")).map((l) => l.slice(11));
      if (!lines.includes("done")) process.stderr.write(`apparmor guest console:\n${g.console.slice(-3000)}\n`);
      process.stderr.write(`apparmor guest (${g.accel}, ${g.seconds.toFixed(0)} s):\n  ${lines.join("\n  ")}\n`);
      expect(lines).toContain("done");
      expect(lines).toContain("enabled Y");
      for (const p of ["runner-profiler", "docker-default", "cri-containerd", "target-readby"]) expect(lines).toContain(`loaded ${p}.bin`);
      const read = (reader: string, target: string) =>
        Object.fromEntries(lines.filter((l) => l.startsWith(`read ${reader} ${target} `)).map((l) => { const w = l.split(" ").slice(3); return [w[0]!, w.slice(1).join(" ")]; }));
      const all = (v: string) => ({ maps: v, exe: v, "ns/pid": v, environ: v });
      for (const t of ["docker-default", "cri-containerd.apparmor.d", "target-readby"]) expect(lines).toContain(`target ${t} ${t} (enforce)`);
      // Measured (Debian 12, 6.1): what decides is the reader's profile. runner-profiler reads
      // unconfined targets and those under Docker's and containerd's default profiles (it allows
      // `ptrace (read)` towards them; their own readby-only-from-themselves rule does not block).
      // A target under any other profile is denied (EACCES) even when that profile allows readby
      // from runner-profiler: runner-profiler must name it (docs/troubleshooting.md).
      const denied = { maps: "denied 13", environ: "denied 13", exe: "denied 13", "ns/pid": "denied 13" };
      expect({
        unconfined: read("runner-profiler", "unconfined"),
        "docker-default": read("runner-profiler", "docker-default"),
        "cri-containerd.apparmor.d": read("runner-profiler", "cri-containerd.apparmor.d"),
        "target-readby": read("runner-profiler", "target-readby"),
      }).toEqual({ unconfined: all("ok"), "docker-default": all("ok"), "cri-containerd.apparmor.d": all("ok"), "target-readby": denied });
      expect(lines.some((l) => l.includes('apparmor="DENIED" operation="ptrace" profile="runner-profiler"') && l.includes('peer="target-readby"'))).toBe(true);
      // The unconfined reader (a host-level Profiler) reads them all.
      for (const t of ["unconfined", "docker-default", "cri-containerd.apparmor.d", "target-readby"]) expect(read("unconfined", t)).toEqual(all("ok"));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 900_000);
});
