// Live matrix, part 1: the collector's file capabilities (set by setcap on a real file) and the
// supervisor's own identity (nobody vs root). Root + setcap required.
import { afterAll, beforeAll, expect, test, setDefaultTimeout } from "bun:test";
import { chownSync } from "node:fs";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { BootSandbox, bootLine, FIVE, REFUSED } from "./boot-setup.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

// Each test starts real processes; a loaded machine (or a cold transpile from sources) is slow.
setDefaultTimeout(60_000);

const live = liveAvailable();
let box: BootSandbox;

describeUnless(whyNot([!live, NOT_ROOT]))("boot: collector file capabilities and the supervisor (live)", () => {
  beforeAll(() => {
    box = new BootSandbox();
  });
  afterAll(() => box?.cleanup());

  test("the five capabilities +ep, supervisor as nobody: boots and prints the boot line", () => {
    const r = box.boot();
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const line = bootLine(r.stdout);
    expect(line).toMatchObject({ class: "profiler", targets: 1, version: expect.any(String), arch: expect.any(String), msg: "profiler booted" });
    expect((line.probes as string[])[0]).toBe("cpu");
    expect(String(line.instrumentation)).toMatch(/^(fully instrumented|\d of \d probes)/);
    // the list itself never appears, only its count
    expect(r.stdout).not.toContain('"api"');
  });

  for (const cap of FIVE.split(",")) {
    test(`${cap} missing: refused naming it and its cost`, () => {
      const others = FIVE.split(",").filter((c) => c !== cap).join(",");
      const ptop = box.collector(`ptop-without-${cap}`, `${others}+ep`);
      const r = box.boot({ env: { RUNNER_COLLECTOR_PATH: ptop } });
      expect(r.code).toBe(REFUSED);
      const name = cap.toUpperCase();
      expect(r.stderr).toContain(`lacks ${name}`);
      expect(r.stderr).toContain(`cost: without ${name}`);
      expect(r.stderr).toContain("fix: docker/compose:");
      expect(r.stderr.trim().split("\n")).toHaveLength(2); // the header and exactly one refusal
    });
  }

  test("an extra capability: refused naming it", () => {
    const ptop = box.collector("ptop-extra", `${FIVE},cap_net_admin+ep`);
    const r = box.boot({ env: { RUNNER_COLLECTOR_PATH: ptop } });
    expect(r.code).toBe(REFUSED);
    expect(r.stderr).toContain("CAP_NET_ADMIN");
    expect(r.stderr).toContain("exactly five");
  });

  test("no file capabilities at all: refused", () => {
    const ptop = box.collector("ptop-none", null);
    const r = box.boot({ env: { RUNNER_COLLECTOR_PATH: ptop } });
    expect(r.code).toBe(REFUSED);
    expect(r.stderr).toContain("has no file capabilities");
    expect(r.stderr).toContain("setcap");
  });

  test("without the effective flag (+p only): refused", () => {
    const ptop = box.collector("ptop-p", `${FIVE}+p`);
    const r = box.boot({ env: { RUNNER_COLLECTOR_PATH: ptop } });
    expect(r.code).toBe(REFUSED);
    expect(r.stderr).toContain("effective flag");
  });

  test("inheritable capabilities: refused", () => {
    const ptop = box.collector("ptop-i", `${FIVE}+eip`);
    const r = box.boot({ env: { RUNNER_COLLECTOR_PATH: ptop } });
    expect(r.code).toBe(REFUSED);
    expect(r.stderr).toContain("inheritable");
  });

  test("the supervisor as root: refused (uid 0, CapEff not 0)", () => {
    const r = box.boot({ asRoot: true });
    expect(r.code).toBe(REFUSED);
    expect(r.stderr).toContain("runs as root");
    expect(r.stderr).toContain("CapEff");
  });

  test("a missing collector: refused naming RUNNER_COLLECTOR_PATH's file", () => {
    const r = box.boot({ env: { RUNNER_COLLECTOR_PATH: `${box.root}/no-ptop` } });
    expect(r.code).toBe(REFUSED);
    expect(r.stderr).toContain("does not exist");
  });

  test("every problem in one refusal: bad env, bad targets and bad capabilities together", () => {
    const ptop = box.collector("ptop-none-2", null);
    const r = box.boot({ env: { RUNNER_COLLECTOR_PATH: ptop, RUNNER_TUNNEL_URL: "ws://x", RUNNER_PROFILE_TARGETS_FILE: `${box.root}/missing.json` } });
    expect(r.code).toBe(REFUSED);
    expect(r.stderr).toContain("RUNNER_TUNNEL_URL");
    expect(r.stderr).toContain("file not found");
    expect(r.stderr).toContain("no file capabilities");
  });

  test("runner doctor as nobody with a correct set-up: every line pass or warn, exit 0", () => {
    const r = box.boot({ args: ["doctor"] });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("pass  [capabilities]");
    expect(r.stdout).toContain("pass  [supervisor]");
    expect(r.stdout).not.toContain("FAIL");
    expect(r.stdout).toContain("the Profiler would boot");
  });

  test("runner doctor with a broken collector: FAIL with cost and fix, exit 1", () => {
    const ptop = box.collector("ptop-doc", `${FIVE.replace("cap_perfmon,", "")}+ep`);
    const r = box.boot({ args: ["doctor"], env: { RUNNER_COLLECTOR_PATH: ptop } });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("FAIL  [capabilities]");
    expect(r.stdout).toContain("cost: without CAP_PERFMON no CPU sampling: the cpu axis cannot exist");
    expect(r.stdout).toContain("fix:  docker/compose:");
  });

  test("runner doctor flags a capable ptop that every user may execute (0755): FAIL, exit 1; the boot refuses", () => {
    const ptop = box.collector("ptop-0755", `${FIVE}+ep`, box.root, "/bin/true", 0o755);
    const r = box.boot({ args: ["doctor"], env: { RUNNER_COLLECTOR_PATH: ptop } });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("FAIL  [collector-access]");
    expect(r.stdout).toContain("every user may execute it (mode 0755)");
    expect(r.stdout).toContain("chmod 0750");
    const boot = box.boot({ env: { RUNNER_COLLECTOR_PATH: ptop } });
    expect(boot.code).toBe(REFUSED);
    expect(boot.stderr).toContain("refused [collector-access]");
    // The installed shape (root:group 0750, the supervisor in the group) passes.
    const ok = box.boot({ args: ["doctor"] });
    expect(ok.stdout).toContain("pass  [collector-access]");
  });

  test("a ptop of another group (0750 root:root): refused as not executable, naming the group to run in", () => {
    const ptop = box.collector("ptop-rootgroup", null);
    chownSync(ptop, 0, 0);
    const r = box.boot({ env: { RUNNER_COLLECTOR_PATH: ptop } });
    expect(r.code).toBe(REFUSED);
    expect(r.stderr).toContain("is not executable by this user (uid 65534, gid 65534; owner 0:0, mode 0750)");
    expect(r.stderr).toContain("runAsGroup: 65532");
  });
});

