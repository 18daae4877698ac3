// The reference `docker run` and Compose setups, parsed and held against the deployment table of
// the reference document: the five capabilities (all else dropped), host PID, tracing mounts,
// identity volume, read-only target list, 512m, restart unless-stopped, tunnel port 8443, the
// bootstrap token from a secret, the AppArmor profile (never unconfined), no no-new-privileges.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REQUIRED_CAPS } from "../../src/profiler/boot/capability-names.ts";
import { PROFILE_NAME } from "../../src/profiler/boot/apparmor.ts";
import { REPO_ROOT } from "../helpers/runner-bin.ts";

const FIVE = REQUIRED_CAPS.map((c) => c.short).sort();

/** The words image/docker-run.sh hands the engine after `run`: the script runs for real, with
 *  DOCKER=printf (one argument per line) as the engine, APPARMOR and CA_FILE as given. */
function dockerRunArgs(env: Record<string, string> = { APPARMOR: "on" }): string[] {
  const r = Bun.spawnSync(["sh", join(REPO_ROOT, "image/docker-run.sh")], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", DOCKER: "printf %s\\n", CA_FILE: "/nonexistent/ca.pem", ...env }, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`docker-run.sh exited ${r.exitCode}: ${r.stderr.toString()}`);
  const words = r.stdout.toString().split("\n").slice(0, -1);
  expect(words[0]).toBe("run");
  return words.slice(1);
}

function values(args: string[], flag: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) if (args[i] === flag) out.push(args[i + 1]!);
  return out;
}

const envOf = (pairs: string[]) => Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)]));

describe("reference docker run", () => {
  const args = dockerRunArgs();
  const env = envOf(values(args, "--env"));
  const volumes = values(args, "--volume");

  test("drops ALL and adds exactly the five capabilities; never --privileged", () => {
    expect(values(args, "--cap-drop")).toEqual(["ALL"]);
    expect(values(args, "--cap-add").sort()).toEqual(FIVE);
    expect(args).not.toContain("--privileged");
  });

  test("runs as the non-root user, in the host PID namespace", () => {
    expect(values(args, "--user")).toEqual(["65532:65532"]);
    expect(values(args, "--pid")).toEqual(["host"]);
  });

  test("mounts tracefs and debugfs from the host at the same paths", () => {
    expect(volumes).toContain("/sys/kernel/tracing:/sys/kernel/tracing");
    expect(volumes).toContain("/sys/kernel/debug:/sys/kernel/debug");
  });

  test("keeps the identity on a named volume at RUNNER_IDENTITY_DIR", () => {
    const id = volumes.find((v) => v.split(":")[1] === env.RUNNER_IDENTITY_DIR);
    expect(id).toBeDefined();
    expect(id!.startsWith("/")).toBe(false); // a named volume, private to the Profiler
  });

  test("mounts the target list read-only at RUNNER_PROFILE_TARGETS_FILE", () => {
    expect(volumes).toContain(`/etc/runner/targets.json:${env.RUNNER_PROFILE_TARGETS_FILE}:ro`);
  });

  test("512m memory, restart unless-stopped", () => {
    expect(values(args, "--memory")).toEqual(["512m"]);
    expect(values(args, "--restart")).toEqual(["unless-stopped"]);
  });

  test("tunnel on wss with port 8443, enrolment over https", () => {
    const tunnel = new URL(env.RUNNER_TUNNEL_URL!);
    expect(tunnel.protocol).toBe("wss:");
    expect(tunnel.port).toBe("8443");
    expect(new URL(env.RUNNER_ENROLL_URL!).protocol).toBe("https:");
  });

  test("the bootstrap token comes from a mounted secret file, never the command line", () => {
    expect(env.RUNNER_BOOTSTRAP_TOKEN).toBeUndefined();
    const secret = volumes.find((v) => v.split(":")[1] === env.RUNNER_BOOTSTRAP_TOKEN_FILE);
    expect(secret).toBeDefined();
    expect(secret!.endsWith(":ro")).toBe(true);
  });

  test("AppArmor: our profile, never unconfined; no no-new-privileges", () => {
    const opts = values(args, "--security-opt");
    expect(opts).toContain(`apparmor=${PROFILE_NAME}`);
    expect(opts.join(" ")).not.toMatch(/unconfined|no-new-privileges/);
  });

  test("APPARMOR=off (a host without AppArmor) sets no profile, and auto follows the host", () => {
    expect(values(dockerRunArgs({ APPARMOR: "off" }), "--security-opt")).toEqual([]);
    let enabled = false;
    try {
      enabled = readFileSync("/sys/module/apparmor/parameters/enabled", "utf8").trim() === "Y";
    } catch {}
    expect(values(dockerRunArgs({ APPARMOR: "auto" }), "--security-opt")).toEqual(enabled ? [`apparmor=${PROFILE_NAME}`] : []);
    expect(Bun.spawnSync(["sh", join(REPO_ROOT, "image/docker-run.sh")], { env: { APPARMOR: "maybe", DOCKER: "true" } }).exitCode).toBe(2);
  });

  test("a private enrolment CA file is mounted read-only and named in RUNNER_CA_FILE when it exists", () => {
    expect(env.RUNNER_CA_FILE).toBeUndefined();
    const ca = join(mkdtempSync(join(tmpdir(), "deploy-ca-")), "ca.pem");
    writeFileSync(ca, "-----BEGIN CERTIFICATE-----\n");
    const withCa = dockerRunArgs({ APPARMOR: "off", CA_FILE: ca });
    expect(values(withCa, "--volume")).toContain(`${ca}:/etc/runner/ca.pem:ro`);
    expect(envOf(values(withCa, "--env")).RUNNER_CA_FILE).toBe("/etc/runner/ca.pem");
    expect(withCa.at(-2)).toMatch(/@sha256:/); // the image by digest, then the command
  });

  test("sets every Profiler variable of the reference document", () => {
    for (const v of ["RUNNER_TENANT", "RUNNER_INSTANCE_ID", "RUNNER_TUNNEL_URL", "RUNNER_ENROLL_URL", "RUNNER_IDENTITY_DIR", "RUNNER_PROFILE_TARGETS_FILE"]) {
      expect(env[v]).toBeTruthy();
    }
  });
});

describe("reference compose.yaml", () => {
  const doc = Bun.YAML.parse(readFileSync(join(REPO_ROOT, "image/compose.yaml"), "utf8")) as any;
  const svc = doc.services.profiler;
  const env = svc.environment as Record<string, string>;

  test("drops ALL, adds exactly the five; non-root; host PID; never privileged", () => {
    expect(svc.cap_drop).toEqual(["ALL"]);
    expect([...svc.cap_add].sort()).toEqual(FIVE);
    expect(svc.user).toBe("65532:65532");
    expect(svc.pid).toBe("host");
    expect(svc.privileged).toBeUndefined();
  });

  test("tracing mounts, a named identity volume, the target list read-only", () => {
    expect(svc.volumes).toContain("/sys/kernel/tracing:/sys/kernel/tracing");
    expect(svc.volumes).toContain("/sys/kernel/debug:/sys/kernel/debug");
    const id = (svc.volumes as string[]).find((v) => v.split(":")[1] === env.RUNNER_IDENTITY_DIR)!;
    expect(doc.volumes[id.split(":")[0]!]).toBeDefined();
    expect(svc.volumes).toContain(`/etc/runner/targets.json:${env.RUNNER_PROFILE_TARGETS_FILE}:ro`);
  });

  test("512m, unless-stopped, tunnel port 8443", () => {
    expect(svc.mem_limit).toBe("512m");
    expect(svc.restart).toBe("unless-stopped");
    expect(new URL(env.RUNNER_TUNNEL_URL!).port).toBe("8443");
  });

  test("the bootstrap token is a compose secret read through RUNNER_BOOTSTRAP_TOKEN_FILE", () => {
    expect(env.RUNNER_BOOTSTRAP_TOKEN).toBeUndefined();
    const name = svc.secrets[0] as string;
    expect(doc.secrets[name].file).toBeTruthy();
    expect(env.RUNNER_BOOTSTRAP_TOKEN_FILE).toBe(`/run/secrets/${name}`);
  });

  test("AppArmor profile set, not unconfined; no no-new-privileges", () => {
    expect(svc.security_opt).toContain(`apparmor=${PROFILE_NAME}`);
    expect(svc.security_opt.join(" ")).not.toMatch(/unconfined|no-new-privileges/);
  });

  test("a private enrolment CA: the mount and RUNNER_CA_FILE are there to uncomment", () => {
    const text = readFileSync(join(REPO_ROOT, "image/compose.yaml"), "utf8");
    expect(text).toContain("# - /etc/runner/ca.pem:/etc/runner/ca.pem:ro");
    expect(text).toContain("# RUNNER_CA_FILE: /etc/runner/ca.pem");
  });

  test("compose and docker run agree on the image's environment", () => {
    const run = envOf(values(dockerRunArgs(), "--env"));
    for (const k of ["RUNNER_IDENTITY_DIR", "RUNNER_PROFILE_TARGETS_FILE", "RUNNER_BOOTSTRAP_TOKEN_FILE", "RUNNER_TUNNEL_URL"]) expect(env[k]).toBe(run[k]!);
  });
});
