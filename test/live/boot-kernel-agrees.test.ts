// Live: the boot's verdict agrees with what the kernel actually grants. The "collector" here is
// a setcap'd copy of grep that prints its own CapEff; it is exec'd as nobody under exactly the
// conditions the boot is run under. The boot must succeed exactly when that exec gets the five.
import { afterAll, beforeAll, expect, test, setDefaultTimeout } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { liveAvailable, NOT_ROOT } from "../helpers/runner-bin.ts";
import { BootSandbox, FIVE, NOBODY, sh } from "./boot-setup.ts";
import { describeUnless, whyNot } from "../helpers/skip.ts";

// Each test starts real processes; a loaded machine (or a cold transpile from sources) is slow.
setDefaultTimeout(60_000);

const live = liveAvailable();
const FIVE_MASK = "000000c000280004"; // BPF 39, PERFMON 38, SYS_ADMIN 21, SYS_PTRACE 19, DAC_READ_SEARCH 2
let box: BootSandbox;

interface Case {
  name: string;
  setprivExtra: string[];
  dir?: () => string;
}

const cases: Case[] = [
  { name: "plain", setprivExtra: [] },
  { name: "no_new_privs", setprivExtra: ["--no-new-privs"] },
  { name: "bounding set without perfmon", setprivExtra: ["--bounding-set=-perfmon"] },
  {
    name: "nosuid mount",
    setprivExtra: [],
    dir: () => {
      const d = join(box.root, "nosuid");
      mkdirSync(d);
      sh(["mount", "-t", "tmpfs", "-o", "nosuid,mode=0755", "tmpfs", d]);
      return d;
    },
  },
];

describeUnless(whyNot([!live, NOT_ROOT]))("boot verdict vs the kernel's grant (live)", () => {
  beforeAll(() => {
    box = new BootSandbox();
  });
  afterAll(() => box?.cleanup());

  for (const c of cases) {
    test(c.name, () => {
      const dir = c.dir ? c.dir() : box.root;
      const probe = box.collector(`grep-${c.name.replace(/\W+/g, "-")}`, `${FIVE}+ep`, dir, "/bin/grep");
      // Through sh, like the supervisor: setpriv itself keeps a permitted set across its uid
      // change, and under no_new_privs the kernel grants the intersection with the parent's
      // permitted set — a parent that holds nothing (our supervisor) passes nothing on.
      const exec = Bun.spawnSync(["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", ...c.setprivExtra, "sh", "-c", 'exec "$0" "$@"', probe, "^CapEff", "/proc/self/status"], { stdout: "pipe", stderr: "pipe" });
      const granted = exec.exitCode === 0 && exec.stdout.toString().trim() === `CapEff:\t${FIVE_MASK}`;
      const boot = box.boot({ setprivExtra: c.setprivExtra, env: { RUNNER_COLLECTOR_PATH: probe } });
      expect({ case: c.name, granted, booted: boot.code === 0 }).toEqual({ case: c.name, granted: c.name === "plain", booted: c.name === "plain" });
    });
  }
});
