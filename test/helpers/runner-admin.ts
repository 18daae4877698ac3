// `runner admin --data DIR …` as a child process, the way an operator runs it.
import { runnerCommand } from "./runner-bin.ts";

export function runAdmin(dir: string, args: string[], stdin?: string): { code: number; out: string; err: string } {
  const r = Bun.spawnSync([...runnerCommand(), "admin", "--data", dir, ...args], {
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

/** As runAdmin, but a non-zero exit throws with the command's stderr; returns stdout. */
export function mustAdmin(dir: string, args: string[], stdin?: string): string {
  const r = runAdmin(dir, args, stdin);
  if (r.code !== 0) throw new Error(`admin ${args.join(" ")}: ${r.err}`);
  return r.out;
}
