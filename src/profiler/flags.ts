// The flag handling `runner profiler` and `runner doctor` share: --help / -h prints the usage
// (exit 0), any argument outside the allowed flags is a usage error (exit 2).

/** An exit status when the command must stop here, undefined when it goes on. */
export function checkFlags(command: string, argv: string[], allowed: string[], usage: string): number | undefined {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(usage);
    return 0;
  }
  const unknown = argv.find((a) => !allowed.includes(a));
  if (unknown !== undefined) {
    process.stderr.write(`runner ${command}: unknown option ${unknown}\n${usage}`);
    return 2;
  }
  return undefined;
}
