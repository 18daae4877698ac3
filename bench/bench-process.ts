// Processes shared by the capture-endpoint benches: the compiled `runner` binary and a process
// that reports its URL in a JSON log line.
import { $ } from "bun";
import { join, resolve } from "node:path";

/** RUNNER_BIN, or a private binary compiled into `work` from src/cli.ts. */
export async function runnerBinary(work: string): Promise<string> {
  if (process.env.RUNNER_BIN) return process.env.RUNNER_BIN;
  const bin = join(work, "runner");
  const cli = resolve(import.meta.dir, "../src/cli.ts");
  const worker = resolve(import.meta.dir, "../src/server/off-loop/worker.ts");
  await $`${process.execPath} build --compile --bytecode --format=esm --minify-syntax --sourcemap=none ${cli} ${worker} --outfile ${bin}`.quiet();
  return bin;
}

/**
 * Starts `cmd` with stdout to `logFile` (a file, not a pipe: nothing has to drain it while wrk
 * runs) and waits up to 10 s for a `"url":"http…"` log line.
 */
export async function startJsonUrlProcess(cmd: string[], logFile: string, env: Record<string, string> = {}) {
  const proc = Bun.spawn(cmd, { stdout: Bun.file(logFile), stderr: "inherit", env: { ...process.env, ...env } });
  for (let i = 0; i < 400; i++) {
    const m = /"url":"(http[^"]+)"/.exec(await Bun.file(logFile).text().catch(() => ""));
    if (m) return { proc, url: m[1]! };
    await Bun.sleep(25);
  }
  proc.kill();
  throw new Error(`${cmd.join(" ")} did not report its URL`);
}
