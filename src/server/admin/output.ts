// What every `runner admin` command shares: its output and its usage errors (exit 2).
export class UsageError extends Error {}

export const out = (s: string): void => void process.stdout.write(`${s}\n`);
export const printJson = (v: unknown): void => out(JSON.stringify(v, null, 2));

export function need(args: string[], n: number, shape: string): string[] {
  if (args.length !== n) throw new UsageError(`expected: runner admin ${shape}`);
  return args;
}
