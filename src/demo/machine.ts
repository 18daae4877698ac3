// The pieces of one-machine setup that the demo and the end-to-end tests share: a TLS certificate
// for the control plane, a setcap'd copy of ptop, an unprivileged user to run the Profiler and the
// workload, tracefs, and a `runner` executable that user can run.
import { $ } from "bun";
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { defaultCollectorPath } from "../config/profiler-env.ts";
import { TRACEFS } from "../profiler/boot/tracing.ts";

export const UNPRIVILEGED_UID = 65534;
export const COLLECTOR_CAPS = "cap_bpf,cap_perfmon,cap_sys_ptrace,cap_dac_read_search,cap_sys_admin+ep";

const REPO = resolve(import.meta.dir, "../..");
const compiled = import.meta.path.startsWith("/$bunfs/");

/** As that user, with a bounding set of exactly the five (the Profiler refuses more, as deployed). */
export function asUnprivileged(cmd: string[]): string[] {
  return ["setpriv", `--reuid=${UNPRIVILEGED_UID}`, `--regid=${UNPRIVILEGED_UID}`, "--clear-groups", "--bounding-set=-all,+bpf,+perfmon,+sys_ptrace,+dac_read_search,+sys_admin", ...cmd];
}

/** A self-signed certificate for 127.0.0.1/localhost; the Profiler trusts it through RUNNER_CA_FILE. */
export async function makeTlsCertificate(dir: string): Promise<{ cert: string; key: string }> {
  const cert = join(dir, "tls-cert.pem");
  const key = join(dir, "tls-key.pem");
  await $`openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout ${key} -out ${cert}`.quiet();
  chmodSync(cert, 0o644);
  return { cert, key };
}

/** Where a built ptop is: where the Profiler itself would look, or the native build dir. */
export function findCollector(): string | null {
  const candidates = [process.env.RUNNER_COLLECTOR_PATH, defaultCollectorPath(), join(REPO, "native/ptop/build/ptop")];
  return candidates.find((c): c is string => !!c && existsSync(c)) ?? null;
}

/** Copies ptop into `dir` and gives the copy exactly its five file capabilities; like an install,
 *  only the Profiler's group (the unprivileged user's) may execute it. */
export async function installCollector(source: string, dir: string): Promise<string> {
  const target = join(dir, "ptop");
  copyFileSync(source, target);
  chownSync(target, 0, UNPRIVILEGED_UID); // before setcap: chown clears file capabilities
  chmodSync(target, 0o750);
  await $`setcap ${COLLECTOR_CAPS} ${target}`.quiet();
  return target;
}

/** A `runner` executable the unprivileged user can run: this one when compiled, else a fresh build. */
export async function runnerExecutable(dir: string): Promise<string> {
  if (compiled) return process.execPath;
  if (process.env.RUNNER_BIN) return process.env.RUNNER_BIN;
  const prebuilt = join(REPO, "dist/runner");
  if (existsSync(prebuilt) && process.env.RUNNER_DEMO_REBUILD !== "1") return prebuilt;
  const out = join(dir, "runner");
  await $`${process.execPath} build --compile --format=esm ${join(REPO, "src/cli.ts")} ${join(REPO, "src/server/off-loop/worker.ts")} --outfile ${out}`.quiet();
  return out;
}

/** Mounts tracefs when absent (the offcpu and syscalls probes need it); returns how to undo it. */
export async function ensureTracefs(): Promise<() => Promise<void>> {
  if (existsSync(`${TRACEFS}/events`)) return async () => {};
  await $`mount -t tracefs nodev ${TRACEFS}`.quiet();
  return async () => {
    await $`umount ${TRACEFS}`.quiet().nothrow();
  };
}

export function ownedByUnprivileged(path: string, mode = 0o700): string {
  mkdirSync(path, { recursive: true });
  chownSync(path, UNPRIVILEGED_UID, UNPRIVILEGED_UID);
  chmodSync(path, mode);
  return path;
}

export async function freePort(): Promise<number> {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

export function isRoot(): boolean {
  return process.getuid?.() === 0;
}
