// `npm run demo` / `npm run build` by a user who does not own the checkout (a root-owned clone):
// one message saying what is missing and how to go on, not EACCES and a stack trace.
import { expect } from "bun:test";
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { testUnless } from "../helpers/skip.ts";

const ROOT = resolve(import.meta.dir, "../..");
const rootOwned = statSync(ROOT).uid === 0;

testUnless(process.getuid?.() === 0 && rootOwned ? null : "needs root and a root-owned checkout to build as another user")(
  "the build run as nobody in a root-owned checkout names what it cannot write and how to go on",
  () => {
    const r = Bun.spawnSync(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "scripts/build.ts"], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/tmp" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const err = r.stderr.toString();
    expect(r.exitCode).toBe(1);
    expect(err).toContain(`cannot write this checkout (${ROOT}) as uid 65534; it belongs to uid 0`);
    expect(err).toContain("sudo npm run demo");
    expect(err).not.toContain("EACCES");
    expect(err).not.toMatch(/^\s+at /m);
  },
  60_000,
);
