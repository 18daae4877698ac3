// What every `runner admin` command shares: its output and its usage errors (exit 2).
import { terminalJson } from "../../terminal-text.ts";

export class UsageError extends Error {}

export const out = (s: string): void => void process.stdout.write(`${s}\n`);
// Every field printed by admin was stored from a client or a Profiler: printed terminal-safe.
export const printJson = (v: unknown): void => out(terminalJson(v));

export function need(args: string[], n: number, shape: string): string[] {
  if (args.length !== n) throw new UsageError(`expected: runner admin ${shape}`);
  return args;
}
