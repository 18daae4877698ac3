// Polling for a condition the system reaches asynchronously (a record finishing, a diff stored):
// the probe's first truthy value, or an error naming what never happened.
export async function until<T>(what: string, ms: number, probe: () => Promise<T | null | undefined | false>, everyMs = 200): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(everyMs);
  }
}
