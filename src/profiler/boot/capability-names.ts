// Linux capability numbers (include/uapi/linux/capability.h) and the five the collector needs,
// each with what its absence costs — the text every refusal about it carries.

export const CAP_NAMES: readonly string[] = [
  "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
  "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE",
  "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
  "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE", "CAP_SYS_PACCT",
  "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE", "CAP_SYS_TIME",
  "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL",
  "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
  "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE",
];

export function capName(bit: number): string {
  return CAP_NAMES[bit] ?? `capability ${bit}`;
}

export interface RequiredCap {
  name: string;
  bit: number;
  /** Name as docker/compose/Kubernetes spell it (no CAP_ prefix). */
  short: string;
  cost: string;
}

export const REQUIRED_CAPS: readonly RequiredCap[] = [
  { name: "CAP_BPF", bit: 39, short: "BPF", cost: "without CAP_BPF no BPF program or map can be loaded: no probe attaches and no axis exists" },
  { name: "CAP_PERFMON", bit: 38, short: "PERFMON", cost: "without CAP_PERFMON no CPU sampling: the cpu axis cannot exist, and no probe can attach to perf events or tracepoints" },
  { name: "CAP_SYS_PTRACE", bit: 19, short: "SYS_PTRACE", cost: "without CAP_SYS_PTRACE the collector cannot read /proc/PID/maps, exe and ns of targets run by other users: their stacks stay unsymbolized and their namespace unknown" },
  { name: "CAP_DAC_READ_SEARCH", bit: 2, short: "DAC_READ_SEARCH", cost: "without CAP_DAC_READ_SEARCH target binaries and perf-map files under /proc/PID/root are unreadable: frames stay raw addresses (no function names, no JIT names)" },
  { name: "CAP_SYS_ADMIN", bit: 21, short: "SYS_ADMIN", cost: "without CAP_SYS_ADMIN the BPF operations the kernel still reserves to it fail and targets in other containers cannot be matched to their namespace" },
];

export function bitsToNames(mask: bigint): string[] {
  const out: string[] = [];
  for (let bit = 0; bit < 64; bit++) if ((mask >> BigInt(bit)) & 1n) out.push(capName(bit));
  return out;
}

export const REQUIRED_MASK: bigint = REQUIRED_CAPS.reduce((m, c) => m | (1n << BigInt(c.bit)), 0n);
