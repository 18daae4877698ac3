/* Types shared by the BPF programs (ptop.bpf.c) and user space. Keep them plain fixed-size
 * structs: the same bytes are read by both sides. */
#ifndef PTOP_H
#define PTOP_H

#define PTOP_MAX_STACK_DEPTH 127
#define PTOP_MAX_TARGETS 8192
#define PTOP_MAX_STACKS 16384
#define PTOP_MAX_COUNTS 65536

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

/* Counters in the `stats` array map, one slot each. */
enum ptop_stat {
	STAT_CPU_SAMPLES = 0,
	STAT_CPU_LOST,
	STAT_OFFCPU_EVENTS,
	STAT_OFFCPU_LOST,
	STAT_SYS_EVENTS,
	STAT_SYS_LOST,
	STAT__COUNT,
};

#endif
