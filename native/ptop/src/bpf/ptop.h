/* Types shared by the BPF programs (the units in bpf/) and user space. Keep them plain fixed-size
 * structs: the same bytes are read by both sides. */
#ifndef PTOP_H
#define PTOP_H

#define PTOP_MAX_STACK_DEPTH 127
#define PTOP_MAX_TARGETS 8192
#define PTOP_MAX_STACKS 16384
#define PTOP_MAX_COUNTS 65536

/* The targets map's value: the process's exec generation (README "Across an execve"). */
typedef __u32 ptop_gen_t;

/* (tgid, user stack id, kernel stack id): the key of the cpu and offcpu aggregates.
 * A negative stack id means "no stack of that kind" (e.g. no kernel stack for a user-mode sample). */
struct stack_key {
	__u32 tgid;
	__s32 ustack;
	__s32 kstack;
	__u32 pad;
};

struct sys_key {
	__u32 tgid;
	__u32 nr;
};

struct sys_val {
	__u64 calls;
	__u64 total_ns;
};

/* Stack snapshots (see README "Sample record and unwinding design"). */
#define PTOP_STACK_MAX 16384   /* bytes of user stack copied from sp upward */
#define PTOP_INTERP_MAX 1024   /* interpreter-frames section (issue 18), 8-aligned */
#define PTOP_REGS 34           /* u64 slots: the head of the arch's user pt_regs (x86 21, arm64 34) */
#define PTOP_RINGBUF_BYTES (8u << 20)
#define PTOP_ALLOC_TABLE 1024     /* alloc: exponential quantiles of the sampling interval */

enum sample_kind { SAMPLE_CPU = 1, SAMPLE_OFFCPU_BLOCK = 2, SAMPLE_OFFCPU_WAKE = 3,
	/* a finished futex lock wait (locks.bpf.c): value = ns waited, seq = the futex address */
	SAMPLE_LOCK_WAIT = 4,
	/* value = bytes allocated on this CPU since its previous alloc sample (alloc.bpf.c) */
	SAMPLE_ALLOC = 5,
	/* kind 6 was an exec record; a sample now carries its image's generation (sample_hdr.gen) */
};

/* sample_hdr.flags */
enum { SAMPLE_F_IN_EXECVE = 1 }; /* taken inside execve: no user stack (the mm may be the new one) */

/* One ring-buffer record: the header, stack_len bytes of user stack starting at the user sp, then
 * interp_len bytes of interpreter frames. A wake record is a header only: the thread `tid` was
 * blocked `value` ns since its block record with the same `seq`. */
struct sample_hdr {
	__u32 kind;
	__u32 tgid;
	__u32 tid;
	__s32 kstack; /* id in the `stacks` map, < 0 none */
	__u64 seq;
	__u64 value;
	__u64 time_ns; /* CLOCK_MONOTONIC (bpf_ktime_get_ns), the clock of the parent's mapping reads */
	/* The process's exec generation when the sample was taken (the `targets` map's value: 0 when
	 * found, + 1 at each execve, exec.bpf.c): which image's mappings name its addresses. */
	__u32 gen;
	__u32 flags; /* SAMPLE_F_* */
	__u64 regs[PTOP_REGS];
	__u32 stack_len;
	__u32 interp_len;
};

/* The slots of sample_hdr.regs read by name (the arch's user pt_regs order), on both sides: user
 * space is built for its arch (__x86_64__, __aarch64__), the BPF object for its target's
 * (__TARGET_ARCH_*). PTOP_REGS_USER: how many slots the arch's user register file fills (x86-64: r15
 * … ss; arm64: x0..x30, sp, pc, pstate). */
#if defined(__x86_64__) || defined(__TARGET_ARCH_x86)
enum { PTOP_REG_FP = 4, PTOP_REG_PC = 16, PTOP_REG_SP = 19, PTOP_REGS_USER = 21 };
#elif defined(__aarch64__) || defined(__TARGET_ARCH_arm64)
enum { PTOP_REG_FP = 29, PTOP_REG_LR = 30, PTOP_REG_SP = 31, PTOP_REG_PC = 32, PTOP_REGS_USER = 34 };
#endif

/* Counters in the `stats` array map, one slot each. */
enum ptop_stat {
	STAT_CPU_SAMPLES = 0,
	STAT_CPU_LOST,
	STAT_OFFCPU_EVENTS,
	STAT_OFFCPU_LOST,
	STAT_SYS_EVENTS,
	STAT_SYS_LOST,
	STAT_SNAPSHOT_FAILED, /* user registers or stack could not be read: the sample has no user stack */
	STAT_LOCK_EVENTS,     /* lock waits recorded */
	STAT_LOCK_LOST,
	STAT_LOCK_OTHER_WAITS, /* futex waits that are not lock contention (locks.bpf.c): counted, not recorded */
	STAT_LOCK_OTHER_NS,
	STAT_ALLOC_SAMPLES,   /* alloc: stacks taken (one per ~period bytes) */
	STAT_ALLOC_LOST,      /* alloc: samples the ring buffer had no room for */
	STAT_ALLOC_BYTES,     /* alloc: every byte requested, counted exactly */
	STAT_ALLOC_CALLS,     /* alloc: every allocation call, counted exactly */
	STAT_ALLOC_FORWARDED, /* alloc: inner calls of one request (e.g. musl calloc -> malloc), not counted twice */
	STAT_ALLOC_LOST_BYTES,/* alloc: bytes credited to samples that were lost */
	/* Of each axis's lost samples, those the ring buffer to the unwinder had no room for. A full
	 * ring buffer refuses the largest snapshots first (a deep stack copies more bytes), so this loss
	 * is biased against deep stacks: the summary's notes say so (out/loss_report.c). */
	STAT_CPU_RINGBUF_FULL,
	STAT_OFFCPU_RINGBUF_FULL,
	STAT_LOCK_RINGBUF_FULL,
	STAT_ALLOC_RINGBUF_FULL,
	STAT__COUNT,
};

/* The programs that run machine-wide whatever the targets do: every CPU's clock (cpu), every
 * context switch (offcpu), every system call (syscalls) — ptop's own sleeps and reads during the
 * window among them. Each sets its flag in the `ran` global on its first run inside the window, so
 * an axis left empty because its program never ran (seen once: an attached sched_switch program
 * that never ran after the first enabling under QEMU TCG) is told apart from idle targets. A
 * probe's descriptor names its slot (probe_table.c, `ran`). */
enum ran_slot { RAN_CPU = 0, RAN_OFFCPU = 1, RAN_SYSCALLS = 2, RAN__COUNT = 3 };

#endif
