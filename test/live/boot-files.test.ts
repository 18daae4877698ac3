// Live: the files the boot reads, as the unprivileged user it runs as — an identity volume it
// cannot write, a target list and a token file it cannot read. Root required (to set up as root
// what nobody then cannot touch).
import { afterAll, beforeAll, expect, test, setDefaultTimeout } from "bun:test";
import { chmodSync, existsSync, mkdirSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { BootSandbox, REFUSED } from "./boot-setup.ts";
import { describeUnless, testUnless, whyNot } from "../helpers/skip.ts";

// Each test starts real processes; a loaded machine (or a cold transpile from sources) is slow.
setDefaultTimeout(60_000);

const live = liveAvailable();
let box: BootSandbox;

describeUnless(whyNot([!live, NOT_ROOT]))("boot: files the unprivileged supervisor must reach (live)", () => {
  beforeAll(() => {
    box = new BootSandbox();
  });
  afterAll(() => box?.cleanup());

  test("an identity volume owned by root: refused naming RUNNER_IDENTITY_DIR", () => {
    const dir = join(box.root, "root-owned");
    mkdirSync(dir, { mode: 0o755 });
    const r = box.boot({ env: { RUNNER_IDENTITY_DIR: dir } });
    expect(r.code).toBe(REFUSED);
    expect(r.stderr).toContain(`RUNNER_IDENTITY_DIR (${dir}) is not writable`);
  });

  test("a target list nobody cannot read: refused, and `targets check` says the same", () => {
    const file = join(box.root, "secret-targets.json");
    writeFileSync(file, JSON.stringify({ targets: [{ workload: "api" }] }));
    chmodSync(file, 0o600);
    const r = box.boot({ env: { RUNNER_PROFILE_TARGETS_FILE: file } });
    expect(r.code).toBe(REFUSED);
    expect(r.stderr).toContain("cannot be read (permission denied)");
    const c = box.boot({ args: ["targets", "check", file] });
    expect(c.code).toBe(1);
    expect(c.stderr).toContain("cannot be read (permission denied)");
  });

  test("a bootstrap token file nobody cannot read: refused naming RUNNER_BOOTSTRAP_TOKEN_FILE, token not shown", () => {
    const file = join(box.root, "token");
    writeFileSync(file, "rpboot_readonlybyroot\n");
    chmodSync(file, 0o600);
    const r = box.boot({ env: { RUNNER_BOOTSTRAP_TOKEN: "", RUNNER_BOOTSTRAP_TOKEN_FILE: file } });
    expect(r.code).toBe(REFUSED);
    expect(r.stderr).toContain("RUNNER_BOOTSTRAP_TOKEN_FILE");
    expect(r.stderr).toContain("EACCES");
    expect(r.stderr).not.toContain("readonlybyroot");
  });

  test("a readable token file: boots without the plain-configuration warning", () => {
    const file = join(box.root, "token-ok");
    writeFileSync(file, "rpboot_fromfile\n");
    chmodSync(file, 0o644);
    const r = box.boot({ env: { RUNNER_BOOTSTRAP_TOKEN: "", RUNNER_BOOTSTRAP_TOKEN_FILE: file } });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("plain configuration");
    expect(r.stdout).not.toContain("rpboot_fromfile");
  });

  test("a token in plain configuration: boots with a warning that names RUNNER_BOOTSTRAP_TOKEN_FILE", () => {
    const r = box.boot();
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("plain configuration");
    expect(r.stdout).toContain("RUNNER_BOOTSTRAP_TOKEN_FILE");
    expect(r.stdout).not.toContain("rpboot_livetest");
  });

  test("the target list: read-only for nobody boots quietly, writable by nobody boots with a warning", () => {
    expect(box.boot().stdout).not.toContain("mount it read-only");
    const file = join(box.root, "writable-targets.json");
    writeFileSync(file, JSON.stringify({ targets: [{ workload: "api" }] }));
    chmodSync(file, 0o666);
    const r = box.boot({ env: { RUNNER_PROFILE_TARGETS_FILE: file } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("is writable by the Profiler; mount it read-only");
  });

  testUnless(whyNot([!live, NOT_ROOT], [!existsSync("/sys/fs/cgroup/memory/cgroup.procs"), "needs cgroup v1's memory controller"]))("a 512m cgroup memory limit is seen by doctor", () => {
    const group = `/sys/fs/cgroup/memory/runner-boot-live-${process.pid}`;
    mkdirSync(group);
    try {
      writeFileSync(`${group}/memory.limit_in_bytes`, String(512 * 1024 * 1024));
      const r = box.boot({ wrap: ["sh", "-c", `echo $$ > ${group}/cgroup.procs && exec "$@"`, "sh"], args: ["doctor"] });
      expect(r.stdout).toContain("pass  [memory] memory limited to 512 MiB (the reference setup)");
      const u = box.boot({ args: ["doctor"] });
      expect(u.stdout).toMatch(/\[memory\] (no memory limit|memory limited to)/);
    } finally {
      rmdirSync(group);
    }
  });
});
