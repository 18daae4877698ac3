/* Types shared by the BPF programs (the units in bpf/) and user space. Keep them plain fixed-size
 * structs: the same bytes are read by both sides. */
#ifndef PTOP_H
#define PTOP_H
#include "probe_table.h"

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

/* sample_hdr.kind: the number of the probe that sent the record (probe_table.h P_*), the axis its
 * value goes to. sample_hdr.flags say how the unwinder adds the record up, so that the unwinder
 * knows no probe: by default a record adds its value (cpu: 1 per sample; locks: ns waited; alloc:
 * bytes since the previous sample) to the aggregate of its stack. */
enum {
	SAMPLE_F_IN_EXECVE = 1, /* taken inside execve: no user stack (the mm may be the new one) */
	/* taken at a function's entry (a uprobe: alloc): the return address is at sp, the frame is the caller's */
	SAMPLE_F_AT_ENTRY = 2,
	/* its value comes later, with the wake record of the same tid and seq (offcpu: a thread blocks) */
	SAMPLE_F_AWAITS_WAKE = 4,
	/* header only: the value of the record of the same tid and seq that awaits it (the thread woke) */
	SAMPLE_F_WAKE = 8,
	SAMPLE_F_SEQ_IN_KEY = 16, /* seq is part of its aggregate's key (locks: the futex address) */
	/* its value is the number of samples it stands for (cpu: 1, or N once the budget keeps one in N):
	 * aggregated or dropped, it counts as that many samples, so that the summary's samples and lost,
	 * counted alike in BPF, sum with the stacks' values */
	SAMPLE_F_COUNTS = 32,
};

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

/* Counters in the `stats` array map. STAT_SNAPSHOT_FAILED is shared; then each probe has a block of
 * PTOP_PROBE_STATS slots at its number: the three below, then its own (named in its own header,
 * bpf/locks_stats.h, bpf/alloc_stats.h). */
enum {
	STAT_SNAPSHOT_FAILED = 0, /* user registers or stack could not be read: the sample has no user stack */
	STAT__SHARED,
};
enum {
	/* records sent (cpu, alloc: every attempt, the lost included); cpu: each counts the samples it
	 * stands for (SAMPLE_F_COUNTS), as its lost, ring-buffer and kernel-stack counts do */
	STAT_SAMPLES = 0,
	STAT_LOST,        /* lost in the kernel: in no stack */
	/* Of the lost, those the ring buffer to the unwinder had no room for. A full ring buffer refuses
	 * the largest snapshots first (a deep stack copies more bytes), so this loss is biased against
	 * deep stacks: the summary's notes say so (out/loss_report.c). */
	STAT_RINGBUF_FULL,
	/* Sent, in a stack, but without their kernel frames (the stack map full or colliding): not
	 * lost, since their value is in the stream; a note counts them (out/loss_report.c). */
	STAT_KSTACK_LOST,
	STAT_OWN,         /* the probe's own counters start here */
	PTOP_PROBE_STATS = 8,
};
#define PTOP_STAT(probe, slot) (STAT__SHARED + (probe) * PTOP_PROBE_STATS + (slot))
#define STAT__COUNT PTOP_STAT(P__COUNT, 0)

/* The `ran` global has one flag per probe, at its number: a machine-wide program (cpu: every CPU's
 * clock; offcpu: every context switch; syscalls: every system call — ptop's own sleeps and reads
 * during the window among them) sets its flag on its first run inside the window, so an axis left
 * empty because its program never ran (seen once: an attached sched_switch program that never ran
 * after the first enabling under QEMU TCG) is told apart from idle targets. Its descriptor says it
 * is machine-wide (probe_table.c). */

#endif
