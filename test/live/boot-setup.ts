// Shared set-up of the boot live tests: a throwaway "ptop" (a copy of /bin/true — the checks are
// about its xattr and the kernel, not its content) with file capabilities set by setcap, a target
// list, an identity volume owned by the unprivileged user, and a way to run `runner profiler`
// as that user through setpriv (optionally wrapped in unshare or with setpriv's own options).

import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isNosuid } from "../../src/profiler/boot/libc.ts";
import { runnerCommand } from "../helpers/runner-bin.ts";

/** The exit status of a refused boot. */
export { EXIT_REFUSED as REFUSED } from "../../src/profiler/command.ts";

export const NOBODY = 65534;
export const FIVE = "cap_bpf,cap_perfmon,cap_sys_ptrace,cap_dac_read_search,cap_sys_admin";
/** setpriv's option for a bounding set of exactly the five, as every reference deployment sets it. */
export const FIVE_BOUNDING = "--bounding-set=-all,+bpf,+perfmon,+sys_ptrace,+dac_read_search,+sys_admin";
/** The five minus `cap` (e.g. "perfmon"), plus `more` (e.g. ["net_admin"]), as a setpriv option. */
export function boundingSet(opts: { without?: string; more?: string[] }): string {
  const caps = ["bpf", "perfmon", "sys_ptrace", "dac_read_search", "sys_admin"].filter((c) => c !== opts.without).concat(opts.more ?? []);
  return `--bounding-set=-all,${caps.map((c) => `+${c}`).join(",")}`;
}

export interface BootRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export class BootSandbox {
  readonly root: string;
  readonly identityDir: string;
  readonly targetsFile: string;
  ptop: string;

  constructor() {
    this.root = mkdtempSync(join(suidCapableTmp(), "boot-live-"));
    chmodSync(this.root, 0o755);
    this.identityDir = join(this.root, "identity");
    mkdirSync(this.identityDir);
    chownSync(this.identityDir, NOBODY, NOBODY);
    this.targetsFile = join(this.root, "targets.json");
    writeFileSync(this.targetsFile, JSON.stringify({ targets: [{ workload: "api" }] }));
    chmodSync(this.targetsFile, 0o644);
    this.ptop = this.collector("ptop", `${FIVE}+ep`);
  }

  /** A fresh collector copy at `name` with `caps` (setcap syntax) or none when caps is null;
   *  root:nobody 0750 as installed (executable by the Profiler's group only), unless `mode` says. */
  collector(name: string, caps: string | null, dir = this.root, from = "/bin/true", mode = 0o750): string {
    const path = join(dir, name);
    copyFileSync(from, path);
    chownSync(path, 0, NOBODY); // before setcap: chown clears file capabilities
    chmodSync(path, mode);
    if (caps !== null) sh(["setcap", caps, path]);
    return path;
  }

  env(over: Record<string, string> = {}): Record<string, string> {
    return {
      PATH: "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
      HOME: "/tmp",
      RUNNER_TENANT: "acme",
      RUNNER_INSTANCE_ID: "live-1",
      RUNNER_TUNNEL_URL: "wss://127.0.0.1:8443/tunnel",
      RUNNER_ENROLL_URL: "https://127.0.0.1:8443/api/profiler/enroll",
      RUNNER_IDENTITY_DIR: this.identityDir,
      RUNNER_PROFILE_TARGETS_FILE: this.targetsFile,
      RUNNER_BOOTSTRAP_TOKEN: "rpboot_livetest",
      RUNNER_COLLECTOR_PATH: this.ptop,
      ...over,
    };
  }

  /** `runner profiler --boot-only` as nobody; `wrap` goes before setpriv, `setprivExtra` into it. */
  boot(opts: { env?: Record<string, string>; wrap?: string[]; setprivExtra?: string[]; asRoot?: boolean; args?: string[] } = {}): BootRun {
    // Exactly the five in the bounding set unless the test sets its own (a root shell holds them all).
    const extra = opts.setprivExtra ?? [];
    const bounding = extra.some((a) => a.startsWith("--bounding-set")) ? [] : [FIVE_BOUNDING];
    const drop = opts.asRoot ? [] : ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", ...bounding, ...extra];
    const cmd = [...(opts.wrap ?? []), ...drop, ...runnerCommand(), ...(opts.args ?? ["profiler", "--boot-only"])];
    const p = Bun.spawnSync(cmd, { env: this.env(opts.env), stdout: "pipe", stderr: "pipe" });
    return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
  }

  cleanup(): void {
    sh(["umount", "-l", join(this.root, "nosuid")], true);
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** A temp dir whose file system honours file capabilities (/tmp is often a nosuid tmpfs). */
export function suidCapableTmp(): string {
  for (const dir of [tmpdir(), "/var/tmp"]) if (!isNosuid(dir)) return dir;
  throw new Error("no temp directory without nosuid: set TMPDIR to one");
}

/** Whether an unprivileged user may create a user namespace here (a sysctl may forbid it). */
export function unprivilegedUserNamespaces(): boolean {
  return Bun.spawnSync(["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "unshare", "--user", "true"]).exitCode === 0;
}

export function sh(cmd: string[], allowFail = false): string {
  const p = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0 && !allowFail) throw new Error(`${cmd.join(" ")} failed: ${p.stderr.toString()}`);
  return p.stdout.toString();
}

/** The boot line (the pino line with class "profiler"), parsed. */
export function bootLine(stdout: string): Record<string, unknown> {
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    const rec = JSON.parse(line) as Record<string, unknown>;
    if (rec.class === "profiler") return rec;
  }
  throw new Error(`no boot line in: ${stdout}`);
}
