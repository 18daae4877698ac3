// /proc/self/mountinfo, reduced to what the boot asks: which file system is mounted where.

import { readFileSync } from "node:fs";

export interface Mount {
  mountPoint: string;
  fsType: string;
  options: string[];
}

/** Undo mountinfo's octal escapes (\040 for space, etc.). */
function unescape(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

export function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    const [left, right] = line.split(" - ");
    if (!left || !right) continue;
    const l = left.split(" ");
    const r = right.split(" ");
    if (l.length < 6 || r.length < 1) continue;
    mounts.push({ mountPoint: unescape(l[4]!), fsType: r[0]!, options: (l[5] ?? "").split(",") });
  }
  return mounts;
}

export function readMounts(): Mount[] {
  try {
    return parseMountinfo(readFileSync("/proc/self/mountinfo", "utf8"));
  } catch {
    return [];
  }
}

/** The file system type mounted last at exactly `point` (later mounts hide earlier ones). */
export function fsTypeAt(mounts: Mount[], point: string): string | undefined {
  let type: string | undefined;
  for (const m of mounts) if (m.mountPoint === point) type = m.fsType;
  return type;
}

/** The mount holding `path` (already resolved): the longest mount point that prefixes it, latest first. */
export function mountOf(mounts: Mount[], path: string): Mount | undefined {
  let best: Mount | undefined;
  for (const m of mounts) {
    const prefix = m.mountPoint === "/" ? "/" : `${m.mountPoint}/`;
    if (path !== m.mountPoint && !path.startsWith(prefix)) continue;
    if (!best || m.mountPoint.length >= best.mountPoint.length) best = m;
  }
  return best;
}
