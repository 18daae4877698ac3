// A listener that cannot bind says which address and why, in the words of the setting that chose it.
// Bun's own message ("Failed to start server. Is port 8080 in use?") names neither the host nor
// the flag, and says nothing for EACCES or an address this machine does not have.

const REASONS: Record<string, string> = {
  EADDRINUSE: "the address is already in use (another process listens there; replicas share a database, not a port)",
  EACCES: "permission denied (ports below 1024 need privileges)",
  EADDRNOTAVAIL: "this machine has no such address",
};

/** Runs `bind`, turning a failure to listen into an error naming `setting` and `host:port`. */
export function listenOrExplain<T>(setting: string, hostname: string, port: number, bind: () => T): T {
  try {
    return bind();
  } catch (err) {
    const code = (err as { code?: string }).code ?? "";
    const host = hostname.includes(":") ? `[${hostname}]` : hostname;
    const reason = REASONS[code] ?? (err instanceof Error ? err.message : String(err));
    throw new Error(`cannot listen on ${host}:${port} (${setting}): ${reason}`);
  }
}
