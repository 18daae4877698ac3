// A gzip bomb for the decompression-limit tests: `mib` MiB of zeros as one gzip member of about a
// thousandth of that, made a megabyte at a time so the test itself never holds the inflated size.
import { createGzip } from "node:zlib";

export async function gzipBomb(mib: number): Promise<Uint8Array> {
  const gz = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gz.on("data", (b: Buffer) => out.push(b));
  const done = new Promise<void>((resolve, reject) => {
    gz.on("end", resolve);
    gz.on("error", reject);
  });
  const zeros = Buffer.alloc(1 << 20);
  for (let i = 0; i < mib; i++) {
    if (!gz.write(zeros)) await new Promise<void>((resolve) => gz.once("drain", () => resolve()));
  }
  gz.end();
  await done;
  return Buffer.concat(out);
}
