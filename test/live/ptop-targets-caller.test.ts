// ptop --targets FILE is run by a user who names the path; ptop holds five capabilities at that
// point. The list must be opened and read with that user's own permissions, only as a regular file,
// and nothing of a file the user could not read may come back in a message. Run as uid 65534 with
// a setcap'd copy, as on a host.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { PTOP_EXIT } from "../../src/protocol/profile-stream.ts";
import { NOBODY, cleanup, runPtop, setcapPtop, sharedTempDir, writeTargets } from "./ptop-harness.ts";
import { describeUnless, testUnless, whyNot } from "../helpers/skip.ts";

const live = liveAvailable();
const SECRET_KEY = "db_password_8f3a1c";
const haveStrace = Bun.which("strace") !== null || process.env.RUNNER_REQUIRE_LIVE === "1";

describeUnless(whyNot([!live, NOT_ROOT]))("ptop reads the target list as its caller (live, uid 65534, five file capabilities)", () => {
  let dir = "";
  let ptop = "";
  beforeAll(() => {
    dir = sharedTempDir("ptop-caller-");
    ptop = setcapPtop(dir);
  });
  afterAll(() => cleanup(dir));

  /** ptop refused the list (exit 3, nothing on stdout) with one line on stderr. */
  async function refused(file: string, workload = "hotloop") {
    const run = await runPtop(ptop, ["--targets", file, "--workload", workload, "--duration", "1"], { signalAfterMs: 10_000 });
    expect({ exit: run.exitCode, stdout: run.stdout }).toEqual({ exit: PTOP_EXIT.refused, stdout: "" });
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    return run.stderr;
  }

  test("a root-only file is not opened: permission denied, and none of its content is echoed", async () => {
    // An invalid list (an unknown key) used to come back as `unknown key "db_password_…"`.
    const secret = join(dir, "root-only.json");
    writeFileSync(secret, JSON.stringify({ [SECRET_KEY]: "hunter2", targets: [{ workload: "hotloop" }] }));
    chmodSync(secret, 0o600);
    const err = await refused(secret);
    expect(err).toContain("Permission denied");
    expect(err).not.toContain("db_password");
    expect(err).not.toContain("hunter2");
  });

  test("a root-only list that names the workload does not authorize it", async () => {
    const list = join(dir, "root-only-valid.json");
    writeFileSync(list, JSON.stringify({ targets: [{ workload: "hotloop" }] }));
    chmodSync(list, 0o600);
    expect(await refused(list)).toContain("Permission denied");
  });

  test("a file in a directory the caller cannot search tells nothing about it", async () => {
    const closed = join(dir, "closed");
    mkdirSync(closed);
    chmodSync(closed, 0o700);
    const present = join(closed, "present.json");
    writeFileSync(present, JSON.stringify({ targets: [{ workload: "hotloop" }] }));
    chmodSync(present, 0o644);
    const a = await refused(present);
    const b = await refused(join(closed, "absent.json"));
    // Same answer whether or not the file exists, as for any program the caller runs.
    expect(a).toContain("Permission denied");
    expect(b).toContain("Permission denied");
    expect(a).not.toContain("regular file");
    expect(a).not.toContain("larger than");
  });

  test("a FIFO is refused at once (it used to block forever while privileged)", async () => {
    const fifo = join(dir, "list.fifo");
    expect(Bun.spawnSync(["mkfifo", "-m", "0666", fifo]).exitCode).toBe(0);
    const started = performance.now();
    expect(await refused(fifo)).toContain("is not a regular file");
    expect(performance.now() - started).toBeLessThan(10_000);
  }, 20_000);

  test("a directory and a device are refused as not regular files", async () => {
    const sub = join(dir, "a-directory");
    mkdirSync(sub);
    chmodSync(sub, 0o755);
    expect(await refused(sub)).toContain("is not a regular file");
    expect(await refused("/dev/zero")).toContain("is not a regular file");
  });

  testUnless(whyNot([!haveStrace, "needs strace"]))("strace: the list is opened and read with the effective set empty, which is restored after", () => {
    const list = writeTargets(dir, { targets: [{ workload: "nginx" }] }, "traced.json");
    const log = join(dir, "strace.log");
    const r = Bun.spawnSync(
      ["strace", "-f", "-y", "-e", "trace=capset,openat,read", "-o", log, ...NOBODY, ptop, "--targets", list, "--workload", "hotloop", "--duration", "1"],
      { stdout: "pipe", stderr: "pipe" },
    );
    expect(r.exitCode).toBe(PTOP_EXIT.refused);
    const lines = readFileSync(log, "utf8").split("\n");
    const at = (pred: (l: string) => boolean) => lines.findIndex(pred);
    const suspend = at((l) => l.includes("capset(") && l.includes("effective=0, permitted=") && l.includes("CAP_DAC_READ_SEARCH"));
    const open = at((l) => l.includes("openat(") && l.includes(list));
    const read = at((l) => / read\(\d+</.test(l) && l.includes(`<${list}>`));
    const restore = at((l) => l.includes("capset(") && /effective=1<<CAP_DAC_READ_SEARCH/.test(l));
    expect(suspend).toBeGreaterThan(-1);
    expect(open).toBeGreaterThan(suspend);
    expect(read).toBeGreaterThan(open);
    expect(restore).toBeGreaterThan(read);
  });
});

