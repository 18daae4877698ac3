// Command-line parsing every role shares: node:util's parseArgs, with its errors reworded into one
// line that names the option and, for a typo, the option meant ("unknown option --jsno (did you
// mean --json?)"). parseArgs's own text for an unknown option ends in an unbalanced quote. A usage
// error exits with USAGE_EXIT in every role.
import { parseArgs, type ParseArgsConfig } from "node:util";

/** Exit status of a usage error (an unknown option, a missing or malformed argument), in every role. */
export const USAGE_EXIT = 2;

export class CliUsageError extends Error {}

/** The known option closest to `typed` (at most two edits away, or a prefix of it), or null. */
export function closestOption(typed: string, known: readonly string[]): string | null {
  let best: { name: string; d: number } | null = null;
  for (const name of known) {
    const d = name.startsWith(typed) && typed.length >= 3 ? 1 : editDistance(typed, name);
    if (d <= 2 && (!best || d < best.d)) best = { name, d };
  }
  return best?.name ?? null;
}

// Damerau–Levenshtein (optimal string alignment): a swapped pair (jsno → json) is one edit.
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** parseArgs, throwing CliUsageError with a one-line message on any malformed command line. */
export function parseCommandLine<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (err) {
    throw new CliUsageError(reword(err as Error & { code?: string }, Object.keys(config.options ?? {})));
  }
}

function reword(err: Error & { code?: string }, known: string[]): string {
  if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const opt = /'(-{1,2}[^'\s=]+)/.exec(err.message)?.[1] ?? "";
    const meant = opt.startsWith("--") ? closestOption(opt.slice(2), known) : null;
    return `unknown option ${opt}${meant ? ` (did you mean --${meant}?)` : ""}`;
  }
  if (err.code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") {
    const arg = /'([^']*)'/.exec(err.message)?.[1];
    return `unexpected argument${arg !== undefined ? ` "${arg}"` : ""}: this command takes options only`;
  }
  if (err.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const m = /Option '(-{1,2}[^' ]+)(?: <value>)?' argument missing/.exec(err.message);
    if (m) return `${m[1]} needs a value`;
    const n = /Option '(-{1,2}[^' ]+)' does not take an argument/.exec(err.message);
    if (n) return `${n[1]} takes no value`;
  }
  return err.message;
}
