// The flag handling `runner profiler` and `runner doctor` share: --help / -h prints the usage
// (exit 0), any argument outside the allowed flags is a usage error (exit 2).

import { closestOption, USAGE_EXIT } from "../cli-args.ts";

/** An exit status when the command must stop here, undefined when it goes on. */
export function checkFlags(command: string, argv: string[], allowed: string[], usage: string): number | undefined {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(usage);
    return 0;
  }
  const unknown = argv.find((a) => !allowed.includes(a));
  if (unknown !== undefined) {
    const meant = unknown.startsWith("--") ? closestOption(unknown.slice(2), allowed.filter((a) => a.startsWith("--")).map((a) => a.slice(2))) : null;
    process.stderr.write(`runner ${command}: unknown option ${unknown}${meant ? ` (did you mean --${meant}?)` : ""}\n${usage}`);
    return USAGE_EXIT;
  }
  return undefined;
}
