// The Profiler's RUNNER_* environment -> a typed, validated configuration. Every problem names
// the variable. Values that are credentials are never echoed in a message.

import { accessSync, constants, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { ProbeName } from "../protocol/profile-stream.ts";
import { probeSetFrom, PROBES_VARIABLE } from "./probe-set.ts";
import { frequencyFrom, FREQUENCY_VARIABLE } from "./sampling-frequency.ts";

export interface ListenAddress {
  host: string;
  port: number;
}

export interface ProfilerConfig {
  tenant: string;
  instanceId: string;
  tunnelUrl: string;
  enrolUrl: string;
  identityDir: string;
  targetsFile: string;
  /** Non-enumerable: JSON.stringify / loggers never see it. */
  readonly bootstrapToken: string;
  bootstrapTokenSource: "file" | "env";
  collectorPath: string;
  /** "HOST:PORT", validated (see parseListen). */
  localListen: string;
  caFile?: string;
  /** RUNNER_PROBES (probe-set.ts): the probes every capture attaches. */
  probes: ProbeName[];
  /** RUNNER_FREQUENCY_HZ (sampling-frequency.ts); absent: ptop's default. */
  frequencyHz?: number;
}

export interface EnvProblem {
  variable: string;
  severity: "fail" | "warn";
  message: string;
}

export interface EnvResult {
  config?: ProfilerConfig;
  problems: EnvProblem[];
}

export const DEFAULT_LOCAL_LISTEN = "127.0.0.1:7071";
const MAX_TOKEN_FILE_BYTES = 4096;

/** `ptop` beside the running executable; from sources, the build output `dist/ptop`. */
export function defaultCollectorPath(): string {
  const compiled = import.meta.path.startsWith("/$bunfs/") || import.meta.path.startsWith("B:/~BUN/");
  if (compiled) return join(dirname(process.execPath), "ptop");
  return resolve(import.meta.dir, "../../dist/ptop");
}

/** RUNNER_COLLECTOR_PATH (resolved), or the default collector when it is unset or empty. */
export function collectorPathFrom(env: Record<string, string | undefined>): string {
  const p = env.RUNNER_COLLECTOR_PATH;
  return p === undefined || p === "" ? defaultCollectorPath() : resolve(p);
}

export function readProfilerEnv(env: Record<string, string | undefined> = process.env): EnvResult {
  const problems: EnvProblem[] = [];
  const fail = (variable: string, message: string) => problems.push({ variable, severity: "fail", message: `${variable} ${message}` });
  const warn = (variable: string, message: string) => problems.push({ variable, severity: "warn", message: `${variable} ${message}` });
  const required = (variable: string): string | undefined => {
    const v = env[variable];
    if (v === undefined || v.trim() === "") {
      fail(variable, "is not set");
      return undefined;
    }
    if (v !== v.trim()) {
      fail(variable, "has leading or trailing whitespace");
      return undefined;
    }
    if (/[\u0000-\u001f\u007f]/.test(v)) {
      fail(variable, "contains a control character");
      return undefined;
    }
    return v;
  };

  const tenant = required("RUNNER_TENANT");
  if (tenant !== undefined && tenant.length > 128) fail("RUNNER_TENANT", "is longer than 128 characters");

  const instanceId = required("RUNNER_INSTANCE_ID");
  if (instanceId !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/.test(instanceId)) {
    fail("RUNNER_INSTANCE_ID", "must be 1-128 characters of letters, digits, '.', '_', ':' or '-', starting with a letter or digit (e.g. the pod or host name)");
  }

  const tunnelUrl = required("RUNNER_TUNNEL_URL");
  if (tunnelUrl !== undefined) {
    const p = urlProblem(tunnelUrl, "wss:", true);
    if (p) fail("RUNNER_TUNNEL_URL", `${p} (e.g. wss://runner.example.com:8443/tunnel)`);
  }

  const enrolUrl = required("RUNNER_ENROLL_URL");
  if (enrolUrl !== undefined) {
    const p = urlProblem(enrolUrl, "https:", false);
    if (p) fail("RUNNER_ENROLL_URL", `${p} (e.g. https://runner.example.com/api/profiler/enroll)`);
  }

  let identityDir = required("RUNNER_IDENTITY_DIR");
  if (identityDir !== undefined) {
    identityDir = resolve(identityDir);
    const p = directoryProblem(identityDir);
    if (p) {
      fail("RUNNER_IDENTITY_DIR", `${p}: mount the identity volume there, writable by the Profiler's user`);
      identityDir = undefined;
    }
  }

  let targetsFile = required("RUNNER_PROFILE_TARGETS_FILE");
  if (targetsFile !== undefined) targetsFile = resolve(targetsFile);

  const token = readBootstrapToken(env, fail, warn);

  const collectorPath = collectorPathFrom(env);

  const listenRaw = env.RUNNER_LOCAL_LISTEN === undefined || env.RUNNER_LOCAL_LISTEN === "" ? DEFAULT_LOCAL_LISTEN : env.RUNNER_LOCAL_LISTEN;
  const localListen = parseListen(listenRaw);
  if (!localListen) fail("RUNNER_LOCAL_LISTEN", "must be HOST:PORT with a port from 1 to 65535 (e.g. 127.0.0.1:7071)");
  else if (!isLoopback(localListen.host)) warn("RUNNER_LOCAL_LISTEN", `listens on ${localListen.host}, beyond loopback: anything that reaches it can queue captures of listed workloads`);

  let caFile = env.RUNNER_CA_FILE === "" ? undefined : env.RUNNER_CA_FILE;
  if (caFile !== undefined) {
    caFile = resolve(caFile);
    const p = caFileProblem(caFile);
    if (p) fail("RUNNER_CA_FILE", p);
  }

  const probeSet = probeSetFrom(env);
  if ("problem" in probeSet) problems.push({ variable: PROBES_VARIABLE, severity: "fail", message: probeSet.problem });
  const frequency = frequencyFrom(env);
  if ("problem" in frequency) problems.push({ variable: FREQUENCY_VARIABLE, severity: "fail", message: frequency.problem });
  else if (frequency.warning) problems.push({ variable: FREQUENCY_VARIABLE, severity: "warn", message: frequency.warning });

  if (problems.some((p) => p.severity === "fail")) return { problems };
  const config = {
    tenant: tenant!,
    instanceId: instanceId!,
    tunnelUrl: tunnelUrl!,
    enrolUrl: enrolUrl!,
    identityDir: identityDir!,
    targetsFile: targetsFile!,
    bootstrapTokenSource: token!.source,
    collectorPath,
    localListen: listenRaw,
    probes: "probes" in probeSet ? probeSet.probes : [],
    ...(!("problem" in frequency) && frequency.hz !== undefined ? { frequencyHz: frequency.hz } : {}),
    ...(caFile !== undefined ? { caFile } : {}),
  } as ProfilerConfig;
  Object.defineProperty(config, "bootstrapToken", { value: token!.value, enumerable: false });
  return { config, problems };
}

function readBootstrapToken(
  env: Record<string, string | undefined>,
  fail: (v: string, m: string) => void,
  warn: (v: string, m: string) => void,
): { value: string; source: "file" | "env" } | undefined {
  const plain = env.RUNNER_BOOTSTRAP_TOKEN;
  const file = env.RUNNER_BOOTSTRAP_TOKEN_FILE;
  const hasPlain = plain !== undefined && plain !== "";
  const hasFile = file !== undefined && file !== "";
  if (hasPlain && hasFile) {
    fail("RUNNER_BOOTSTRAP_TOKEN", "and RUNNER_BOOTSTRAP_TOKEN_FILE are both set; keep only RUNNER_BOOTSTRAP_TOKEN_FILE (a mounted secret)");
    return undefined;
  }
  if (!hasPlain && !hasFile) {
    fail("RUNNER_BOOTSTRAP_TOKEN", "is not set: mount the tenant's bootstrap token as a secret file and point RUNNER_BOOTSTRAP_TOKEN_FILE at it");
    return undefined;
  }
  if (hasFile) {
    const path = resolve(file!);
    let text: string;
    try {
      const st = statSync(path);
      if (!st.isFile()) {
        fail("RUNNER_BOOTSTRAP_TOKEN_FILE", `(${path}) is not a regular file`);
        return undefined;
      }
      if (st.size > MAX_TOKEN_FILE_BYTES) {
        fail("RUNNER_BOOTSTRAP_TOKEN_FILE", `(${path}) is larger than ${MAX_TOKEN_FILE_BYTES} bytes; it must hold only the token`);
        return undefined;
      }
      text = readFileSync(path, "utf8");
    } catch (err) {
      fail("RUNNER_BOOTSTRAP_TOKEN_FILE", `(${path}) cannot be read: ${(err as NodeJS.ErrnoException).code ?? "error"}`);
      return undefined;
    }
    const value = text.trim();
    if (!tokenShapeOk(value)) {
      fail("RUNNER_BOOTSTRAP_TOKEN_FILE", `(${path}) must contain one token on one line, without spaces`);
      return undefined;
    }
    return { value, source: "file" };
  }
  const value = plain!;
  if (!tokenShapeOk(value)) {
    fail("RUNNER_BOOTSTRAP_TOKEN", "must be one token without spaces or control characters");
    return undefined;
  }
  warn("RUNNER_BOOTSTRAP_TOKEN", "is given in plain configuration; mount it from a secret store and use RUNNER_BOOTSTRAP_TOKEN_FILE instead");
  return { value, source: "env" };
}

function tokenShapeOk(value: string): boolean {
  return value.length > 0 && value.length <= 1024 && /^[\x21-\x7e]+$/.test(value);
}

/** Why `raw` is not an acceptable URL with `scheme`, or undefined. Never echoes credentials. */
export function urlProblem(raw: string, scheme: "wss:" | "https:", portRequired: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `is not a valid URL`;
  }
  if (url.protocol !== scheme) return `must use ${scheme}// (got ${url.protocol}//)`;
  if (url.username !== "" || url.password !== "") return "must not carry credentials in the URL";
  if (url.hostname === "") return "has no host";
  if (url.hash !== "") return "must not have a #fragment";
  if (portRequired) {
    // WHATWG URL drops a default port (":443"), so the explicit port is read from the raw authority.
    const authority = /^[a-z]+:\/\/([^/?#]*)/i.exec(raw)?.[1] ?? "";
    const port = /:(\d+)$/.exec(authority.replace(/^\[[^\]]*\]/, "[]"))?.[1];
    if (port === undefined) return "must name its port explicitly (8443 in the reference setup)";
    const n = Number(port);
    if (!(n >= 1 && n <= 65535)) return "has a port outside 1-65535";
  }
  return undefined;
}

export function parseListen(raw: string): ListenAddress | undefined {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(raw);
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: m[1]!.replace(/^\[(.*)\]$/, "$1"), port };
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

function directoryProblem(dir: string): string | undefined {
  try {
    if (!statSync(dir).isDirectory()) return `(${dir}) is not a directory`;
  } catch {
    return `(${dir}) does not exist`;
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch {
    return `(${dir}) is not writable`;
  }
  return undefined;
}

function caFileProblem(file: string): string | undefined {
  try {
    const st = statSync(file);
    if (!st.isFile()) return `(${file}) is not a regular file`;
    if (st.size > 1024 * 1024) return `(${file}) is larger than 1 MiB`;
    if (!readFileSync(file, "utf8").includes("-----BEGIN CERTIFICATE-----")) return `(${file}) holds no PEM certificate`;
  } catch (err) {
    return `(${file}) cannot be read: ${(err as NodeJS.ErrnoException).code ?? "error"}`;
  }
  return undefined;
}
