// native/ptop/src/out/syscall_names.c is generated and committed: its generator, run on this
// machine's UAPI headers, writes the committed file byte for byte (CI installs linux-libc-dev).
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";

const PTOP = resolve(import.meta.dir, "../../native/ptop");
const HEADERS = ["/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "/usr/include/asm-generic/unistd.h"];

test.skipIf(!HEADERS.every(existsSync))("tools/syscall_names_gen.sh regenerates src/out/syscall_names.c exactly", () => {
  const r = Bun.spawnSync(["sh", "tools/syscall_names_gen.sh"], { cwd: PTOP, stdout: "pipe", stderr: "pipe" });
  expect(r.stderr.toString()).toBe("");
  expect(r.exitCode).toBe(0);
  expect(r.stdout.toString()).toBe(readFileSync(`${PTOP}/src/out/syscall_names.c`, "utf8"));
});
