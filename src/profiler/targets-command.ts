// `runner targets check FILE`: the boot's target-list check, on its own. Exit 0 when the list
// would boot, 1 when it would be refused, 2 on usage errors. Prints counts and problems, never
// the list itself (it does not leave the machine through logs either).

import { checkTargets } from "./boot/targets.ts";

const USAGE = "usage: runner targets check FILE\n";

export async function targetsCommand(argv: string[]): Promise<number> {
  const [sub, file, ...rest] = argv;
  if (sub === "--help" || sub === "-h") {
    process.stdout.write(USAGE);
    return 0;
  }
  if (sub !== "check" || !file || rest.length > 0) {
    process.stderr.write(USAGE);
    return 2;
  }
  const { list, findings } = checkTargets(file);
  for (const f of findings) {
    const line = f.status === "pass" ? `ok: ${f.message}` : f.status === "warn" ? `warning: ${f.message}` : `refused: ${f.message}`;
    (f.status === "fail" ? process.stderr : process.stdout).write(`${line}\n`);
  }
  return list.errors.length === 0 ? 0 : 1;
}
