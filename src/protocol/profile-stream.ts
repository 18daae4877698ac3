// The raw profile stream that `ptop` writes to stdout and witness reads.
//
// Format: JSON Lines (one JSON object per line, UTF-8, "\n" separated). Chosen over a binary
// format because the C side stays a few fprintf calls, every line is inspectable with `jq`, and a
// truncated stream (collector killed) still parses up to its last full line.
//
// Order of records:
//   header            exactly one, first
//   probe             one per requested probe: attached or not, with the reason
//   process           one per target process seen during the window (also those that start late)
//   frame             frame table; ids are referenced by stacks; emitted before first use
//   stack             one per (axis, distinct stack): aggregated value
//   summary           exactly one, last; absent means the collector died (treat as partial);
//                     its samples per axis = the events in that axis's stacks + its lost
//
// Axes and units:
//   cpu       value = samples (period_ns per sample in the axis record)
//   offcpu    value = nanoseconds blocked (switched out until switched back in)
//   syscalls  value = calls; total_ns = summed latency; stack is [syscall frame]
//   locks     value = nanoseconds waited for a lock held by another thread (futex lock waits,
//             timed from the call to its return), by the waiter's user stack; the summary's
//             `locks` groups the same waits by lock
//   alloc     value = bytes allocated (libc malloc/calloc/realloc/aligned_alloc/posix_memalign, Go
//             runtime.mallocgc). Sampled by bytes: one stack per ~512 KiB at random intervals, each
//             credited with the bytes since the previous one, so the split between stacks is an
//             unbiased estimate; summary.totals.alloc is every byte, counted exactly.
// An axis whose probe did not attach has no `axis` record and no stacks: it is absent, not zero.
// So is an axis the summary's `not_fired` names: its probe attached, but its program never ran.
//
// Stacks list frame ids root first (outermost caller first, leaf last), like folded stacks.

import { Type, type Static } from "@sinclair/typebox";

export const STREAM_VERSION = 1;

export const ProbeName = Type.Union([Type.Literal("cpu"), Type.Literal("offcpu"), Type.Literal("syscalls"), Type.Literal("locks"), Type.Literal("alloc")]);
export type ProbeName = Static<typeof ProbeName>;
export const ALL_PROBES: readonly ProbeName[] = ["cpu", "offcpu", "syscalls", "locks", "alloc"];

export const FrameKind = Type.Union([
  Type.Literal("native"),
  Type.Literal("kernel"),
  Type.Literal("jit"),
  Type.Literal("syscall"),
  /** A CPython function, read from the interpreter's frame chain: `module` is its file. */
  Type.Literal("python"),
  /** A Java method, read from the JVM's own frames (interpreted, compiled or inlined): `module` is `[java]`. */
  Type.Literal("java"),
  Type.Literal("unknown"),
]);
export type FrameKind = Static<typeof FrameKind>;

export const HeaderRecord = Type.Object({
  type: Type.Literal("header"),
  version: Type.Literal(STREAM_VERSION),
  workload: Type.String(),
  namespace: Type.Optional(Type.String()),
  probes_requested: Type.Array(ProbeName),
  frequency_hz: Type.Integer({ minimum: 1 }),
  warmup_sec: Type.Number({ minimum: 0 }),
  duration_sec: Type.Number({ minimum: 0 }),
  /** Unix epoch milliseconds when measurement (after warmup) began. */
  started_at_ms: Type.Integer(),
  hostname: Type.Optional(Type.String()),
  kernel: Type.Optional(Type.String()),
});

export const ProbeRecord = Type.Object({
  type: Type.Literal("probe"),
  name: ProbeName,
  attached: Type.Boolean(),
  /** Why it did not attach, with the fix when known (e.g. "tracefs not mounted at /sys/kernel/tracing"). */
  reason: Type.Optional(Type.String()),
});

export const AxisRecord = Type.Object({
  type: Type.Literal("axis"),
  name: ProbeName,
  unit: Type.Union([Type.Literal("samples"), Type.Literal("nanoseconds"), Type.Literal("calls"), Type.Literal("bytes")]),
  period_ns: Type.Optional(Type.Integer()),
});

export const ProcessRecord = Type.Object({
  type: Type.Literal("process"),
  pid: Type.Integer(),
  /** PID inside the target's own PID namespace (NSpid last field). */
  nspid: Type.Optional(Type.Integer()),
  comm: Type.String(),
  exe: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
});

export const FrameRecord = Type.Object({
  type: Type.Literal("frame"),
  id: Type.Integer({ minimum: 0 }),
  function: Type.String(),
  module: Type.Optional(Type.String()),
  build_id: Type.Optional(Type.String()),
  kind: FrameKind,
  /** python: first line of the function in `module`. */
  line: Type.Optional(Type.Integer({ minimum: 0 })),
  /** Unsymbolized address (hex) when `function` could not be resolved. */
  address: Type.Optional(Type.String()),
});

export const StackRecord = Type.Object({
  type: Type.Literal("stack"),
  axis: ProbeName,
  frames: Type.Array(Type.Integer({ minimum: 0 })),
  value: Type.Number({ minimum: 0 }),
  total_ns: Type.Optional(Type.Number({ minimum: 0 })),
  pid: Type.Optional(Type.Integer()),
});

/** One lock in the summary's `locks`: the waits of the `locks` axis on one futex word of one process. */
export const LockSummary = Type.Object({
  pid: Type.Integer(),
  /** The futex word's address in the process (hex): the same lock however many stacks wait on it. */
  address: Type.String(),
  wait_ns: Type.Number({ minimum: 0 }),
  waits: Type.Integer({ minimum: 0 }),
  /** Distinct waiter stacks. */
  stacks: Type.Integer({ minimum: 0 }),
  /** Frame ids (root first) of the stack that waited longest on it, and how long. */
  top_stack: Type.Optional(Type.Array(Type.Integer({ minimum: 0 }))),
  top_stack_ns: Type.Optional(Type.Number({ minimum: 0 })),
});

export const SummaryRecord = Type.Object({
  type: Type.Literal("summary"),
  /** Per axis, the samples (cpu) or events (offcpu and locks: waits; syscalls: calls; alloc: sampled
   * allocations) taken in the window, the lost included: each is in a stack or in `lost`, so on an
   * axis whose value is a count (cpu, syscalls) samples = the sum of its stacks' values + lost,
   * exactly. A cpu sample ptop's budget kept counts for the N it stands for (`sample_weight`) here,
   * in `lost` and in its stack's value alike: samples at the header's frequency. On offcpu and locks
   * the values are nanoseconds, on alloc bytes: there samples counts the events, not the value. */
  samples: Type.Record(Type.String(), Type.Number()),
  /** Per axis, samples (events, counted as in `samples`) in no stack of the stream: lost in the
   * kernel (ring buffer full, no user registers, a map full), in ptop's unwinder (its aggregate full
   * or out of memory; a note then says how many) or at the stream's size budget (a note). Never
   * dropped silently. A sample whose kernel frames were lost (stack map full or colliding) is not
   * lost: it is in a stack with its user frames, and a note counts it. */
  lost: Type.Record(Type.String(), Type.Number()),
  /** Per axis, the value (samples, ns) in stacks that could not be walked to their root; such a
   * stack starts with a `[truncated]` frame. Additive (v1). */
  incomplete: Type.Optional(Type.Record(Type.String(), Type.Number())),
  /** Per axis whose stacks are sampled but whose total is counted exactly (alloc: every byte), that
   * exact total; the stacks' values sum to it only approximately. Additive (v1). */
  totals: Type.Optional(Type.Record(Type.String(), Type.Number())),
  /** Per axis whose probe attached but whose BPF program the kernel never ran in the window,
   * although it fires machine-wide (cpu: every CPU's clock; offcpu: every context switch;
   * syscalls: every system call): why. Such an axis is absent, like one whose probe did not attach,
   * not zero. Each reason starts with NEVER_RAN. Additive (v1). */
  not_fired: Type.Optional(Type.Partial(Type.Record(ProbeName, Type.String()), { additionalProperties: false })),
  partial: Type.Boolean(),
  /** Why the window ended early when partial (e.g. "SIGTERM after 12.3 s of 60 s"). */
  partial_reason: Type.Optional(Type.String()),
  ended_at_ms: Type.Integer(),
  measured_sec: Type.Number(),
  /** Caveats about the capture that are not a probe failure, one sentence each (e.g. kernel
   * frames left unsymbolized because /proc/kallsyms hides addresses from ptop). Additive (v1). */
  notes: Type.Optional(Type.Array(Type.String())),
  /** With the cpu axis: the frequency the window was sampled at on average. Below the header's
   * frequency_hz when ptop's CPU went over its budget (native/ptop/README.md, "The sample budget")
   * and it kept one sample in N from then on; a note then says so, and each later sample counts for
   * N in the stacks' values and in `samples` and `lost`, which stay in samples at the header's
   * period. Additive (v1). */
  effective_frequency_hz: Type.Optional(Type.Number({ minimum: 0 })),
  /** Per axis whose samples ptop's budget thinned: the most samples one kept sample stands for (its
   * stack's value, `samples` and `lost` count it that many times). A statistic that takes each
   * sample for one count counts such an axis's values and samples in units of it (witness does).
   * Additive (v1). */
  sample_weight: Type.Optional(Type.Record(Type.String(), Type.Number({ minimum: 1 }))),
  /** With the locks axis: its waits grouped by lock, longest total wait first (at most 50). Additive (v1). */
  locks: Type.Optional(Type.Array(LockSummary)),
});

/** How ptop's `summary.not_fired` reasons begin (native/ptop/src/out/probe_ran.c). */
export const NEVER_RAN = "attached but never ran";

export const StreamRecord = Type.Union([
  HeaderRecord,
  ProbeRecord,
  AxisRecord,
  ProcessRecord,
  FrameRecord,
  StackRecord,
  SummaryRecord,
]);

export type HeaderRecord = Static<typeof HeaderRecord>;
export type ProbeRecord = Static<typeof ProbeRecord>;
export type AxisRecord = Static<typeof AxisRecord>;
export type ProcessRecord = Static<typeof ProcessRecord>;
export type FrameRecord = Static<typeof FrameRecord>;
export type StackRecord = Static<typeof StackRecord>;
export type SummaryRecord = Static<typeof SummaryRecord>;
export type LockSummary = Static<typeof LockSummary>;
export type StreamRecord = Static<typeof StreamRecord>;

/** Exit codes of `ptop` (documented in native/ptop/README.md). */
export const PTOP_EXIT = {
  ok: 0,
  usage: 2,
  /** workload not named by the target list, or the list itself is invalid */
  refused: 3,
  /** no process of the workload is running on this host */
  not_running: 4,
  /** missing capability or kernel feature: nothing could be attached */
  no_privilege: 5,
  /** stopped by SIGTERM/SIGINT; the stream is complete but partial */
  interrupted: 6,
  internal: 1,
} as const;
