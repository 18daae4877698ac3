// Bundles the browser script (app/main.ts and what it imports: units.ts, witness/palette.ts) into one IIFE,
// as a Bun macro: it runs when the executable is built (`bun build --compile` inlines the result)
// and when the sources run directly (`bun src/cli.ts`, the tests), so both serve the same script.
// Bun.build cannot run inside a macro (the bundler would wait on itself), hence the CLI.

/** The bundled script of `entry` (a path relative to this file). */
export function clientScript(entry: string): string {
  const path = new URL(entry, import.meta.url).pathname;
  const r = Bun.spawnSync([process.execPath, "build", path, "--target=browser", "--format=iife", "--minify-syntax"], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`bundling the browser script ${entry} failed:\n${r.stderr.toString()}`);
  return r.stdout.toString();
}
