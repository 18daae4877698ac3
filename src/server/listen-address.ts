// HOST:PORT (IPv6 as [::1]:PORT) -> parts; port 0 asks the kernel for a free port.
export function parseListenAddress(value: string, flag: string): { hostname: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new Error(`${flag} must be HOST:PORT (e.g. 127.0.0.1:8080), got "${value}"`);
  return { hostname: (m[1] ?? m[2])!, port };
}
