#!/usr/bin/env bun
// Entry point of the single `runner` executable: picks a role from argv and hands over.
// Each role lives in its own room; imports are lazy (and chunks split at build) so one role never
// pays for another's start-up.
import { exitAfterOutput, trackOutput } from "./exit-after-output.ts";
import { RUNNER_VERSION } from "./version.ts";

type Command = (argv: string[]) => Promise<number>;

// One line per role; each role's module exports a Command.
const ROLES: Record<string, { summary: string; load: () => Promise<Command> }> = {
  agent: { summary: "connectors: catalog [--json] | run OP --args JSON | health", load: async () => (await import("./agent/command.ts")).agentCommand },
  profiler: { summary: "Profiler supervisor: boot checks, identity, then captures (--boot-only: checks and exit)", load: async () => (await import("./profiler/command.ts")).profilerCommand },
  targets: { summary: "targets check FILE: validate a Profiler target list", load: async () => (await import("./profiler/targets-command.ts")).targetsCommand },
  doctor: { summary: "print every Profiler deployment requirement as pass / fail / warn with its fix", load: async () => (await import("./profiler/doctor-command.ts")).doctorCommand },
  server: { summary: "control plane: capture request API, tokens, records", load: async () => (await import("./server/command.ts")).serverCommand },
  admin: { summary: "store administration: orgs, Profiler opt-in, tokens, captures", load: async () => (await import("./server/admin/command.ts")).adminCommand },
  capture: { summary: "pipeline client: queue a capture with a capture token", load: async () => (await import("./client/capture-command.ts")).captureCommand },
  witness: { summary: "profiles: fold | convert (pprof, folded, speedscope) | diff of two versions with a noise floor", load: async () => (await import("./witness/index.ts")).witnessCommand },
  demo: { summary: "the main job end to end on this machine: two versions of a sample service, captured and diffed", load: async () => (await import("./demo/command.ts")).demoCommand },
};

function usage(): string {
  const lines = Object.entries(ROLES).map(([name, r]) => `  ${name.padEnd(10)} ${r.summary}`);
  return `usage: runner <command> [options]\n\ncommands:\n${lines.join("\n")}\n`;
}

/** `--help` or `-h` anywhere among a role's arguments (before a `--`) asks for that role's usage, in
 *  one place for every role and subcommand: `witness diff --help` was an unknown-option error, and
 *  `agent health --help` ran every connector's check instead of printing the usage. */
function asksForHelp(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(usage());
    return name ? 0 : 2;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    process.stdout.write(`${RUNNER_VERSION}\n`);
    return 0;
  }
  const role = ROLES[name];
  if (!role) {
    process.stderr.write(`runner: unknown command "${name}"\n${usage()}`);
    return 2;
  }
  return (await role.load())(asksForHelp(rest) ? ["--help"] : rest);
}

if (import.meta.main) {
  trackOutput();
  main(process.argv.slice(2)).then(
    (code) => {
      // Servers return -1 and stay up; a one-shot command exits with its code once its output is whole.
      if (code !== -1) void exitAfterOutput(code);
    },
    (err) => {
      process.stderr.write(`runner: ${err instanceof Error ? err.message : String(err)}\n`);
      void exitAfterOutput(1);
    },
  );
}
