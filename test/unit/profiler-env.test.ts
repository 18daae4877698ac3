// The Profiler's RUNNER_* environment: each rule, each message naming its variable.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readProfilerEnv, urlProblem } from "../../src/config/profiler-env.ts";
import { DEFAULT_PROBES } from "../../src/config/probe-set.ts";
import { PTOP_DEFAULT_FREQUENCY_HZ, PTOP_MAX_FREQUENCY_HZ } from "../../src/config/sampling-frequency.ts";
import { testUnless } from "../helpers/skip.ts";

let dir: string;
let env: Record<string, string>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "profiler-env-"));
  writeFileSync(join(dir, "token"), "rpboot_secretvalue\n");
  writeFileSync(join(dir, "ca.pem"), "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  env = {
    RUNNER_TENANT: "acme",
    RUNNER_INSTANCE_ID: "node-1",
    RUNNER_TUNNEL_URL: "wss://runner.example.com:8443/tunnel",
    RUNNER_ENROLL_URL: "https://runner.example.com/api/profiler/enroll",
    RUNNER_IDENTITY_DIR: dir,
    RUNNER_PROFILE_TARGETS_FILE: join(dir, "targets.json"),
    RUNNER_BOOTSTRAP_TOKEN_FILE: join(dir, "token"),
    RUNNER_COLLECTOR_PATH: "/usr/local/bin/ptop",
  };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const failures = (over: Record<string, string | undefined>) =>
  readProfilerEnv({ ...env, ...over }).problems.filter((p) => p.severity === "fail");

describe("profiler environment", () => {
  test("a complete environment yields the config, defaults filled in", () => {
    const r = readProfilerEnv(env);
    expect(r.problems).toEqual([]);
    expect(r.config).toMatchObject({ tenant: "acme", instanceId: "node-1", identityDir: dir, localListen: "127.0.0.1:7071", collectorPath: "/usr/local/bin/ptop", bootstrapTokenSource: "file" });
    expect(r.config!.bootstrapToken).toBe("rpboot_secretvalue");
    expect(r.config!.caFile).toBeUndefined();
  });

  test("the token never appears when the config is serialised", () => {
    const r = readProfilerEnv(env);
    expect(JSON.stringify(r.config)).not.toContain("secretvalue");
  });

  test("every missing required variable is named", () => {
    const r = readProfilerEnv({});
    const named = r.problems.map((p) => p.variable).sort();
    expect(named).toEqual(["RUNNER_BOOTSTRAP_TOKEN", "RUNNER_ENROLL_URL", "RUNNER_IDENTITY_DIR", "RUNNER_INSTANCE_ID", "RUNNER_PROFILE_TARGETS_FILE", "RUNNER_TENANT", "RUNNER_TUNNEL_URL"]);
    for (const p of r.problems) expect(p.message.startsWith(p.variable)).toBe(true);
    expect(r.config).toBeUndefined();
  });

  test("tunnel URL: wss with an explicit port", () => {
    expect(failures({ RUNNER_TUNNEL_URL: "ws://runner.example.com:8443/tunnel" })[0]!.message).toContain("RUNNER_TUNNEL_URL must use wss://");
    expect(failures({ RUNNER_TUNNEL_URL: "https://runner.example.com:8443" })[0]!.message).toContain("wss://");
    expect(failures({ RUNNER_TUNNEL_URL: "wss://runner.example.com/tunnel" })[0]!.message).toContain("port explicitly");
    // the default port written out is still explicit, though URL() drops it
    expect(failures({ RUNNER_TUNNEL_URL: "wss://runner.example.com:443/tunnel" })).toEqual([]);
    expect(failures({ RUNNER_TUNNEL_URL: "wss://[::1]:8443/tunnel" })).toEqual([]);
    expect(failures({ RUNNER_TUNNEL_URL: "wss://[::1]/tunnel" })[0]!.message).toContain("port explicitly");
    expect(failures({ RUNNER_TUNNEL_URL: "not a url" })[0]!.message).toContain("not a valid URL");
  });

  test("credentials in a URL are refused without being echoed", () => {
    const [p] = failures({ RUNNER_ENROLL_URL: "https://user:hunter2@runner.example.com/enroll" });
    expect(p!.message).toContain("must not carry credentials");
    expect(p!.message).not.toContain("hunter2");
    expect(urlProblem("wss://a:b@h:1", "wss:", true)).not.toContain("b@");
  });

  test("enrol URL: https", () => {
    expect(failures({ RUNNER_ENROLL_URL: "http://runner.example.com/enroll" })[0]!.message).toContain("RUNNER_ENROLL_URL must use https://");
    expect(failures({ RUNNER_ENROLL_URL: "https://runner.example.com:8080/enroll" })).toEqual([]);
  });

  test("identity dir exists, is a directory and writable", () => {
    expect(failures({ RUNNER_IDENTITY_DIR: join(dir, "missing") })[0]!.message).toContain("does not exist");
    expect(failures({ RUNNER_IDENTITY_DIR: join(dir, "token") })[0]!.message).toContain("not a directory");
  });

  test("instance id shape", () => {
    expect(failures({ RUNNER_INSTANCE_ID: "../etc" })[0]!.variable).toBe("RUNNER_INSTANCE_ID");
    expect(failures({ RUNNER_INSTANCE_ID: "profiler-0.payments" })).toEqual([]);
  });

  test("whitespace and control characters are refused", () => {
    expect(failures({ RUNNER_TENANT: " acme" })[0]!.message).toContain("whitespace");
    expect(failures({ RUNNER_TENANT: "ac\u0000me" })[0]!.message).toContain("control character");
  });

  test("bootstrap token from plain env warns, from a file does not", () => {
    const r = readProfilerEnv({ ...env, RUNNER_BOOTSTRAP_TOKEN_FILE: undefined, RUNNER_BOOTSTRAP_TOKEN: "rpboot_plainvalue" });
    expect(r.config?.bootstrapTokenSource).toBe("env");
    expect(r.config?.bootstrapToken).toBe("rpboot_plainvalue");
    const [w] = r.problems;
    expect(w!.severity).toBe("warn");
    expect(w!.message).toContain("RUNNER_BOOTSTRAP_TOKEN_FILE");
    expect(w!.message).not.toContain("plainvalue");
  });

  test("both token sources at once are refused", () => {
    const [p] = failures({ RUNNER_BOOTSTRAP_TOKEN: "rpboot_x" });
    expect(p!.message).toContain("both set");
  });

  test("token file problems name the variable and never the content", () => {
    writeFileSync(join(dir, "bad-token"), "rpboot_a rpboot_b\n");
    const [p] = failures({ RUNNER_BOOTSTRAP_TOKEN_FILE: join(dir, "bad-token") });
    expect(p!.variable).toBe("RUNNER_BOOTSTRAP_TOKEN_FILE");
    expect(p!.message).not.toContain("rpboot_a");
    expect(failures({ RUNNER_BOOTSTRAP_TOKEN_FILE: join(dir, "no-token") })[0]!.message).toContain("cannot be read");
  });

  test("local listen address", () => {
    expect(readProfilerEnv({ ...env, RUNNER_LOCAL_LISTEN: "[::1]:9000" }).config?.localListen).toBe("[::1]:9000");
    expect(failures({ RUNNER_LOCAL_LISTEN: "127.0.0.1" })[0]!.variable).toBe("RUNNER_LOCAL_LISTEN");
    expect(failures({ RUNNER_LOCAL_LISTEN: "127.0.0.1:70000" })[0]!.variable).toBe("RUNNER_LOCAL_LISTEN");
    const r = readProfilerEnv({ ...env, RUNNER_LOCAL_LISTEN: "0.0.0.0:7071" });
    expect(r.config).toBeDefined();
    expect(r.problems[0]).toMatchObject({ variable: "RUNNER_LOCAL_LISTEN", severity: "warn" });
  });

  test("CA file must hold a PEM certificate", () => {
    expect(readProfilerEnv({ ...env, RUNNER_CA_FILE: join(dir, "ca.pem") }).config?.caFile).toBe(join(dir, "ca.pem"));
    expect(failures({ RUNNER_CA_FILE: join(dir, "token") })[0]!.message).toContain("no PEM certificate");
    expect(failures({ RUNNER_CA_FILE: join(dir, "nope.pem") })[0]!.variable).toBe("RUNNER_CA_FILE");
  });

  // root writes anywhere; test/live/boot-files.test.ts covers this as nobody
  testUnless(process.getuid?.() === 0 ? "runs as root, whom file modes do not stop" : null)("an unwritable identity dir is refused (as a non-root user)", () => {
    const ro = join(dir, "ro");
    mkdirSync(ro);
    chmodSync(ro, 0o500);
    expect(failures({ RUNNER_IDENTITY_DIR: ro })[0]!.message).toContain("not writable");
  });
});

describe("RUNNER_PROBES: the probe set every capture attaches", () => {
  test("unset or empty: cpu, offcpu, syscalls, locks (alloc is opt-in)", () => {
    expect(readProfilerEnv(env).config!.probes).toEqual(["cpu", "offcpu", "syscalls", "locks"]);
    expect(readProfilerEnv({ ...env, RUNNER_PROBES: "" }).config!.probes).toEqual([...DEFAULT_PROBES]);
    expect(DEFAULT_PROBES).not.toContain("alloc");
  });
  test("a list is taken as given, spaces trimmed and duplicates dropped", () => {
    expect(readProfilerEnv({ ...env, RUNNER_PROBES: "cpu, alloc,cpu" }).config!.probes).toEqual(["cpu", "alloc"]);
  });
  test("an unknown or empty name fails, naming the variable and the accepted names", () => {
    for (const bad of ["cpu,heap", "cpu,,alloc"]) {
      const f = failures({ RUNNER_PROBES: bad });
      expect(f.map((p) => p.variable)).toEqual(["RUNNER_PROBES"]);
      expect(f[0]!.message).toContain("cpu, offcpu, syscalls, locks, alloc");
    }
  });
});


describe("RUNNER_FREQUENCY_HZ: the cpu probe's sampling frequency", () => {
  test("unset or empty: none given, so ptop's default applies", () => {
    expect(readProfilerEnv(env).config!.frequencyHz).toBeUndefined();
    expect(readProfilerEnv({ ...env, RUNNER_FREQUENCY_HZ: " " }).config!.frequencyHz).toBeUndefined();
  });
  test("at or below the default: taken without a word; above it: taken, with a warning naming the cost", () => {
    const low = readProfilerEnv({ ...env, RUNNER_FREQUENCY_HZ: "99" });
    expect(low.config!.frequencyHz).toBe(99);
    expect(low.problems).toEqual([]);
    const high = readProfilerEnv({ ...env, RUNNER_FREQUENCY_HZ: "999" });
    expect(high.config!.frequencyHz).toBe(999);
    expect(high.problems).toHaveLength(1);
    expect(high.problems[0]).toMatchObject({ variable: "RUNNER_FREQUENCY_HZ", severity: "warn" });
    expect(high.problems[0]!.message).toContain(`above ptop's default of ${PTOP_DEFAULT_FREQUENCY_HZ} Hz`);
  });
  test("anything but a whole number of Hz in [1, 10000] fails, naming the variable and the range", () => {
    for (const bad of ["0", "10001", "99.5", "-5", "fast", "1e3", "99 Hz"]) {
      const f = failures({ RUNNER_FREQUENCY_HZ: bad });
      expect(f.map((p) => p.variable)).toEqual(["RUNNER_FREQUENCY_HZ"]);
      expect(f[0]!.message).toContain("from 1 to 10000");
    }
  });
  test("the default and the range are ptop's own (native/ptop/src/collector/args.c), not copies that can drift", () => {
    const args = readFileSync(resolve(import.meta.dir, "../../native/ptop/src/collector/args.c"), "utf8");
    expect(args).toContain(`o->frequency_hz = ${PTOP_DEFAULT_FREQUENCY_HZ};`);
    expect(args).toContain(`v < 1 || v > ${PTOP_MAX_FREQUENCY_HZ})`);
  });
});
