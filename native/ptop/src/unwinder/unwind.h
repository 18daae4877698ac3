/* Whole user stacks from stack snapshots (README: "Sample record and unwinding design").
 *
 * unwind_start() forks the unwinder: the child drops every capability at once, then reads the
 * `samples` ring buffer, unwinds each snapshot with elfutils' libdwfl over the CFI of the mapped
 * files the privileged parent passes it (descriptors only, over a SEQPACKET socketpair), and
 * aggregates (axis, tgid, kernel stack id, pcs, interpreter section) -> value. The parent reads
 * that aggregate with unwind_collect() only after its own capability drop. */
#ifndef PTOP_UNWIND_H
#define PTOP_UNWIND_H
#include "probes.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PTOP_MAX_UNWIND_DEPTH 256

/* One aggregated stack as the child sends it. pcs are lookup addresses (a return address minus
 * one: the call), leaf first. */
struct unwound_hdr {
	uint32_t axis; /* the number of the probe whose samples these are (probe_table.h) */
	uint32_t tgid;
	int32_t kstack;
	uint32_t truncated;
	uint32_t npcs;
	uint32_t interp_len;
	uint32_t gen;       /* the samples' exec generation: which image of tgid names the pcs (gen_pick.h) */
	uint32_t in_execve; /* 1: taken inside execve, no user stack (SAMPLE_F_IN_EXECVE); npcs 0 */
	uint64_t lock;  /* the samples' seq when it is part of their key (SAMPLE_F_SEQ_IN_KEY; locks: the futex address); 0 otherwise */
	double value;
	double events;  /* samples / waits aggregated into value */
};

int unwind_start(struct probes *p, char *err, size_t len);
/* Passes pid's executable mappings and their open files (prepared by symbolize.c) to the child;
 * first = newly found process, else an update after its mappings changed. read_ns: CLOCK_MONOTONIC
 * ns (monoclock.h) taken before symbolize.c last read pid's maps: the child uses a table only for
 * samples of the image that was running then; gen: that image's exec generation (bpf/ptop.h). */
void unwind_send_process(int pid, bool first, uint64_t read_ns, uint32_t gen);
/* A JVM's libjvm.so (mapped at start from file offset off) and /proc/PID/mem, for its Java frames
 * (hotspot.h); after unwind_send_process(pid, true, …). The descriptors stay the caller's. */
void unwind_send_jvm(int pid, int libfd, uint64_t start, uint64_t off, int memfd);
/* The window ended: the child drains the ring buffer and writes its aggregate. */
void unwind_stop(void);
struct unwind_trailer;
struct unwind_name;
/* After the parent's capability drop: calls name_fn for every name the child read during the window
 * (Java methods, unwind_wire.h; text is nm->len checked bytes, not NUL-terminated), fn for every
 * aggregated stack, then sets *counts from the child's trailer (zero when it did not arrive). 0 on
 * a complete read, trailer included. */
int unwind_collect(void (*fn)(const struct unwound_hdr *h, const uint64_t *pcs, const uint8_t *interp, void *arg),
		   void (*name_fn)(uint32_t tgid, const struct unwind_name *nm, const char *text, void *arg), void *arg,
		   struct unwind_trailer *counts);
#endif
