// sha256 of a file, streamed so that hashing the ~100 MB runner executable does not hold it in memory.

import { openSync, readSync, closeSync } from "node:fs";

export interface FileDigest {
  sha256: string;
  size: number;
}

export function digestFile(path: string): FileDigest {
  const hasher = new Bun.CryptoHasher("sha256");
  const buf = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(path, "r");
  let size = 0;
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      hasher.update(buf.subarray(0, n));
      size += n;
    }
  } finally {
    closeSync(fd);
  }
  return { sha256: hasher.digest("hex"), size };
}
