/* The report, in three stages: collect (the BPF maps at the end of the window, privileged: raw
 * addresses only; then the unwinder's aggregate, after the capability drop), resolve (symbols and
 * the interpreter merge, per axis) and emit (the stacks and the summary). What differs per probe
 * is its descriptor's (probe_table.h). */
#ifndef PTOP_REPORT_H
#define PTOP_REPORT_H
#include "agg.h"
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
	bool in_execve;         /* taken inside execve: no user stack, named [in execve] */
	uint32_t gen;           /* the exec generation: which image of the process names pcs (gen_pick.h) */
	uint8_t *interp;        /* interpreter-frames section (interp.bpf.h), or NULL */
	uint32_t interp_len;
	uint64_t lock;          /* locks: the futex address */
	uint64_t events;        /* locks: waits */
};

struct sys_count {
	struct sys_key key;
	struct sys_val val;
};

/* One axis after the resolve stage: its symbolized stacks, aggregated, and its value in all and in
 * stacks that did not reach their root. */
struct axis_result {
	struct agg agg;
	double total, incomplete;
};

struct report {
	/* collect */
	struct stack_count *stacks[P__COUNT]; /* per unwinding axis, the unwinder's aggregate */
	size_t nstacks[P__COUNT];
	struct sys_count *sys;
	size_t nsys;
	uint64_t **kstacks; /* kernel stack id -> PTOP_MAX_STACK_DEPTH addresses, or NULL */
	uint64_t stat[STAT__COUNT];
	bool ran[P__COUNT]; /* per probe: its machine-wide program ran inside the window (ptop.h `ran`) */
	/* The unwinder's counts: snapshots that gave no frame at all (their [truncated] stacks are in
	 * summary.incomplete), and per axis the samples it could not aggregate (in summary.lost). */
	struct unwind_trailer unwound;
	/* resolve */
	struct axis_result axes[P__COUNT];
	bool any_kernel; /* some stack has kernel frames */
};

/* Privileged, before the drop: syscall counts and counters (no target data). */
void report_collect(struct report *r, struct probes *p);
/* After the drop: the unwinder's stacks, and the kernel stacks they name. 0 on a complete read. */
int report_collect_unwound(struct report *r, struct probes *p);
/* After the drop: every attached axis's stacks symbolized and aggregated. */
void report_resolve(struct report *r, const struct probes *p);
/* Emit stage: the samples (events: waits, calls) probe i took in the window, the lost included
 * (summary.samples): those in its stacks plus those in summary.lost. */
uint64_t samples_taken(const struct report *r, int i);
/* Emit stage: the notes on samples lost before the unwinder (per axis, by cause, with the bias a
 * full ring buffer brings), samples in a stack without their kernel frames, and samples the
 * unwinder could not hold back after an exec; at most 3 * P__COUNT. */
size_t loss_notes(const struct report *r, const struct probes *p, const char **notes);
void report_emit(struct report *r, const struct probes *p, const char *partial_reason, int64_t ended_ms, double measured);
#endif
