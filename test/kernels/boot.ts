// Boots one guest under QEMU, bounded in time, and splits its console into the scenarios' sections.
// TCG by default: on this workplace's nested-virtualisation hosts /dev/kvm opens but KVM guests
// either die at once ("failed to set MSR 0x10a") or hang before init (seen here, 2026-11-26), and
// the kernel is what is under test, not the accelerator. RUNNER_KERNEL_ACCEL=kvm asks for KVM
// (host architecture only); a KVM start that dies before the kernel prints is retried under TCG.
import { accessSync, constants } from "node:fs";
import { arch } from "node:os";
import { ARCH, type GuestArch } from "./matrix.ts";
import type { Section } from "./scenarios.ts";

const MARK = "@@kernels ";
/** The guest's memory: its root file system is the initramfs, unpacked in RAM (with the java
 *  scenario's JDK ~250 MB, held twice while the kernel unpacks it), and the JVM's heap beside it. */
const GUEST_MIB = 1536;

export interface GuestResult {
  accel: "kvm" | "tcg";
  /** wall-clock seconds from starting QEMU to its exit */
  seconds: number;
  /** `uname -r` and `uname -m` as the guest printed them */
  uname: string;
  sections: Map<string, Section>;
  /** guest uptime when each scenario started and ended */
  times: Map<string, [number, number]>;
  /** the guest printed its last marker and powered off */
  complete: boolean;
  /** what init.sh's warm-up capture measured (its summary's samples, and a probe ptop saw never run), printed, never checked */
  warmup: string;
  console: string;
  exitCode: number | null;
  timedOut: boolean;
}

function kvmUsable(guest: GuestArch): boolean {
  if (process.env.RUNNER_KERNEL_ACCEL !== "kvm") return false;
  const hostArch = arch() === "x64" ? "amd64" : arch();
  if (hostArch !== guest) return false;
  try {
    accessSync("/dev/kvm", constants.R_OK | constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The console text between markers, by scenario and file (see guest/init.sh). */
export function parseConsole(text: string): Pick<GuestResult, "sections" | "times" | "complete" | "uname" | "warmup"> {
  const sections = new Map<string, Section>();
  const times = new Map<string, [number, number]>();
  let uname = "";
  let warmup = "";
  let complete = false;
  let section: Section | undefined;
  let fileName = "";
  let lines: string[] = [];
  const closeFile = () => {
    if (section && fileName) section.set(fileName, lines.join("\n"));
    fileName = "";
    lines = [];
  };
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\r$/, "");
    if (!line.startsWith(MARK)) {
      if (fileName) lines.push(line);
      continue;
    }
    const [kind, ...rest] = line.slice(MARK.length).split(" ");
    if (kind === "kernel") uname = rest.join(" ");
    else if (kind === "warmup") warmup = rest.join(" ").trim();
    else if (kind === "section") {
      closeFile();
      section = new Map();
      sections.set(rest[0]!, section);
      times.set(rest[0]!, [Number(rest[1]), Number(rest[2])]);
    } else if (kind === "file") {
      closeFile();
      fileName = rest[0]!;
    } else if (kind === "end") {
      closeFile();
      section = undefined;
    } else if (kind === "done") complete = true;
  }
  // init.sh prints `echo` after each file, so the lines up to the next marker, joined, are the
  // file's exact text (with or without its own final newline).
  return { sections, times, complete, uname, warmup };
}

type BootOpts = { arch: GuestArch; vmlinuz: string; initramfs: string; timeoutSec: number };

export async function bootGuest(opts: BootOpts): Promise<GuestResult> {
  if (!kvmUsable(opts.arch)) return runQemu(opts, "tcg");
  const kvm = await runQemu(opts, "kvm");
  // A KVM start that dies before the guest runs is retried under TCG, the failure kept in the console.
  if (kvm.uname || kvm.timedOut) return kvm;
  const tcg = await runQemu(opts, "tcg");
  return { ...tcg, console: `[kvm start failed, retried under tcg]\n${kvm.console}\n${tcg.console}` };
}

async function runQemu(opts: BootOpts, accel: "kvm" | "tcg"): Promise<GuestResult> {
  const a = ARCH[opts.arch];
  // -arch-capabilities: QEMU asserts when the host KVM cannot set that MSR (nested AMD hosts).
  const cpu = accel === "kvm" ? ["-machine", a.machine[1]!, "-cpu", "host,-arch-capabilities"] : a.machine;
  const cmd = [
    a.qemu, ...cpu, "-accel", accel === "kvm" ? "kvm" : "tcg,thread=multi", "-smp", "2", "-m", String(GUEST_MIB),
    "-nodefaults", "-display", "none", "-serial", "stdio", "-no-reboot",
    "-kernel", opts.vmlinuz, "-initrd", opts.initramfs,
    "-append", `${a.append} quiet loglevel=1 panic=-1 rdinit=/init`,
  ];
  const started = performance.now();
  const proc = Bun.spawn(cmd, { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill("SIGKILL");
  }, opts.timeoutSec * 1000);
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const exitCode = await proc.exited;
  clearTimeout(timer);
  const seconds = (performance.now() - started) / 1000;
  const consoleText = err ? `${out}\n[qemu stderr] ${err}` : out;
  return { accel, seconds, ...parseConsole(out), console: consoleText, exitCode, timedOut };
}
