// What every role of the executable does alike: --help prints usage on stdout and exits 0;
// -v is --version.
import { expect, test } from "bun:test";
import { runnerCommand } from "../helpers/runner-bin.ts";

const ROLES = ["agent", "profiler", "targets", "doctor", "server", "admin", "capture", "witness", "demo"];

function run(args: string[]) {
  const r = Bun.spawnSync([...runnerCommand(), ...args], { stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

test.each(ROLES)("runner %s --help: usage on stdout, exit 0", (role) => {
  const r = run([role, "--help"]);
  expect(r.code).toBe(0);
  expect(r.out).toMatch(new RegExp(`^usage:\\s+runner ${role}`));
}, 30_000);

// A help flag after a subcommand or among its arguments is the same request: usage, exit 0, and
// nothing run (`agent health --help` used to call every connector).
const SUBCOMMANDS = [["witness", "diff"], ["witness", "fold", "-"], ["witness", "convert"], ["agent", "run", "some.op"], ["agent", "health"],
  ["agent", "catalog", "--json"], ["targets", "check", "/etc/targets.json"], ["admin", "captures", "show", "ID"], ["profiler", "--boot-only"]];
test.each(SUBCOMMANDS)("runner %s %s … --help: the role's usage on stdout, exit 0", (...args: string[]) => {
  for (const flag of ["--help", "-h"]) {
    const r = run([...args, flag]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: "" });
    expect(r.out).toMatch(new RegExp(`^usage:\\s+runner ${args[0]}`));
  }
}, 30_000);

test("-v is --version", () => {
  const long = run(["--version"]);
  expect(long.code).toBe(0);
  expect(long.out).toMatch(/^\d+\.\d+\.\d+/);
  expect(run(["-v"])).toEqual(long);
}, 30_000);
