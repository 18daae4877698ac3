// A refused boot needs a fix, not a retry: under `--restart unless-stopped` (Podman restarts at
// once, without back-off) a refusal that exits at once restarts dozens of times a second. So the
// long-running `runner profiler` stays up for a while after printing its refusal, then exits 78;
// a stop signal (docker stop, SIGTERM/SIGINT) ends the wait at once. --boot-only never waits.

export const DEFAULT_HOLD_SECONDS = 60;

/** RUNNER_REFUSED_BOOT_HOLD_SECONDS: 0-3600; anything else falls back to the default. */
export function holdSeconds(raw: string | undefined): number {
  if (raw === undefined || raw === "" || !/^\d{1,4}$/.test(raw)) return DEFAULT_HOLD_SECONDS;
  const n = Number(raw);
  return n <= 3600 ? n : DEFAULT_HOLD_SECONDS;
}

export async function holdRefusal(raw: string | undefined): Promise<void> {
  const seconds = holdSeconds(raw);
  if (seconds === 0) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      process.off("SIGTERM", done);
      process.off("SIGINT", done);
      resolve();
    };
    const timer = setTimeout(done, seconds * 1000);
    process.on("SIGTERM", done);
    process.on("SIGINT", done);
    // Said once the handlers are in place: a stop signal from then on ends the wait, not the process.
    process.stderr.write(`runner profiler: waiting ${seconds} s before exiting (exit 78) so that a restart policy does not loop; fix the problems above\n`);
  });
}
