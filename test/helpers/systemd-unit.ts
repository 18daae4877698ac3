// systemd unit files for the deploy tests: parsed into section → key → every value (systemd allows
// repeats), and checked with systemd's own parser (`systemd-analyze verify`).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

export function parseUnit(src: string): Record<string, Record<string, string[]>> {
  const out: Record<string, Record<string, string[]>> = {};
  let section = "";
  for (const raw of src.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const s = /^\[(.+)\]$/.exec(line);
    if (s) {
      section = s[1]!;
      out[section] ??= {};
      continue;
    }
    const eq = line.indexOf("=");
    if (eq < 0 || !section) throw new Error(`not a unit line: ${line}`);
    (out[section]![line.slice(0, eq)] ??= []).push(line.slice(eq + 1));
  }
  return out;
}

export const systemdAnalyze = Bun.which("systemd-analyze");

/**
 * `systemd-analyze verify` of `unit` saved as `name`: unknown keys or invalid values are reported on
 * stderr. `executable` is replaced by /bin/true, which exists here (the unit's is installed only on hosts).
 */
export function verifyUnit(name: string, unit: string, executable: string): { code: number; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), "deploy-systemd-"));
  const file = join(dir, basename(name));
  writeFileSync(file, unit.replaceAll(`ExecStart=${executable}`, "ExecStart=/bin/true"));
  const r = Bun.spawnSync([systemdAnalyze!, "verify", file], { stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, stderr: r.stderr.toString() };
}
