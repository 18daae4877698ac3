// `runner demo` (npm run demo): the main job end to end on this machine when it can run it (root,
// a built ptop, a C compiler, openssl); otherwise the capture request API walkthrough, after saying
// exactly what is missing for the full demo.
import { CliUsageError, parseCommandLine, USAGE_EXIT } from "../cli-args.ts";
import { apiWalkthrough } from "./api-walkthrough.ts";
import { runEndToEndDemo } from "./end-to-end.ts";
import { findCollector, isRoot } from "./machine.ts";

const USAGE = `usage: runner demo [--api-only] [--keep] [--duration S] [--warmup S] [--replicates N]
  Runs the control plane, a Profiler and a sample service at two versions on this machine,
  queues head and replicate captures through the HTTP API and prints what changed.
  Needs root (or sudo), a built ptop (npm run build), a C compiler and openssl.
  --keep: the full demo keeps its directory (store, tokens, the collector copy with its
  capabilities; otherwise only the differential flame graph it points at stays); with
  --api-only the server keeps running.
`;

export async function demoCommand(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseCommandLine({
      args: argv,
      options: {
        "api-only": { type: "boolean", default: false },
        keep: { type: "boolean", default: false },
        duration: { type: "string", default: "10" },
        warmup: { type: "string", default: "2" },
        replicates: { type: "string", default: "3" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`runner demo: ${(err as Error).message}\n${USAGE}`);
    return USAGE_EXIT;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const num = (name: string, v: string, min: number, max: number) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max) throw new CliUsageError(`--${name} must be a number from ${min} to ${max}, got "${v}"`);
    return n;
  };
  let o;
  try {
    o = { durationSec: num("duration", values.duration!, 5, 300), warmupSec: num("warmup", values.warmup!, 0, 60), replicates: num("replicates", values.replicates!, 1, 10), keep: values.keep! };
  } catch (err) {
    process.stderr.write(`runner demo: ${(err as Error).message}\n${USAGE}`);
    return USAGE_EXIT;
  }
  if (values["api-only"]) return apiWalkthrough({ keep: values.keep! });

  const missing = await missingForFullDemo();
  const collector = findCollector();
  if (missing.length || !collector) {
    process.stdout.write(
      `The full demo (a Profiler measuring a real service at two versions) cannot run here:\n` +
        missing.map((m) => `  - ${m}\n`).join("") +
        `Showing the capture request API instead.\n`,
    );
    return apiWalkthrough({ keep: values.keep! });
  }
  return runEndToEndDemo({ ...o, collector });
}

async function missingForFullDemo(): Promise<string[]> {
  const missing: string[] = [];
  if (!isRoot()) missing.push("root: run `sudo npm run demo` (setcap on ptop and starting processes as an unprivileged user need it)");
  if (!findCollector()) missing.push("ptop is not built: `npm run build` (needs clang, bpftool, libbpf-dev, libelf-dev)");
  // Bun.which, not `command -v`: Bun's shell has no `command` builtin. /usr/sbin holds setcap.
  const has = async (cmd: string) => Bun.which(cmd, { PATH: `${process.env.PATH ?? ""}:/usr/sbin:/sbin` }) !== null;
  if (!(await has("cc")) && !(await has("clang"))) missing.push("a C compiler (cc or clang) to build the sample service");
  if (!(await has("openssl"))) missing.push("openssl, for the control plane's TLS certificate");
  if (!(await has("setcap"))) missing.push("setcap (Debian package libcap2-bin)");
  if (!(await has("setpriv"))) missing.push("setpriv (Debian package util-linux)");
  return missing;
}
