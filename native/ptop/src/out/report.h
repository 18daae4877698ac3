/* Reading the aggregates out of the BPF maps at the end of the window (privileged: raw
 * addresses only) and emitting them as symbolized stacks (after the capability drop). */
#ifndef PTOP_REPORT_H
#define PTOP_REPORT_H
#include "probes.h"
#include <linux/types.h>
#include "ptop.h"
#include "unwind_wire.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stack_count {
	struct stack_key key;   /* key.ustack unused: the user stack is `pcs` */
	uint64_t value;
	uint64_t *pcs;          /* unwound user stack, leaf first, lookup addresses */
	uint32_t npcs;
	bool truncated;         /* the unwinder could not reach the root */
	uint8_t *interp;        /* interpreter-frames section (python.bpf.h), or NULL */
	uint32_t interp_len;
	uint64_t lock;          /* locks: the futex address */
	uint64_t events;        /* locks: waits */
};

struct sys_count {
	struct sys_key key;
	struct sys_val val;
};

struct report {
	struct stack_count *cpu, *offcpu, *locks, *alloc;
	size_t ncpu, noffcpu, nlocks, nalloc;
	struct sys_count *sys;
	size_t nsys;
	uint64_t **stacks; /* stack id -> PTOP_MAX_STACK_DEPTH addresses, or NULL */
	int *tgids;        /* distinct tgids with stacks: the processes to symbolize */
	size_t ntgids;
	uint64_t stat[STAT__COUNT];
	bool ran[RAN__COUNT]; /* the machine-wide programs that ran inside the window (ptop.h enum ran_slot) */
	/* The unwinder's counts: snapshots that gave no frame at all (their [truncated] stacks are in
	 * summary.incomplete), and per axis the samples it could not aggregate (in summary.lost). */
	struct unwind_trailer unwound;
};

/* Privileged, before the drop: syscall counts and counters (no target data). */
void report_collect(struct report *r, struct probes *p);
/* After the drop: the unwinder's stacks, and the kernel stacks they name. 0 on a complete read. */
int report_collect_unwound(struct report *r, struct probes *p);
void report_emit(struct report *r, struct probes *p, const char *partial_reason, int64_t ended_ms, double measured);
#endif
