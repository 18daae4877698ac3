/* The table-driven walk of a stack snapshot over stack deltas (delta_table.h): per frame, a
 * binary search for the pc's row, the CFA from sp or fp, the return address (and fp) read from the
 * snapshot. It gives the frames libdwfl's dwfl_getthread_frames would give for the same snapshot
 * and modules (the frame_cb rules of unwind_child.c included), or DELTA_WALK_FALLBACK as soon as a
 * frame needs what a row cannot say: the caller then unwinds the sample with libdwfl. amd64 and
 * arm64 (where a pc without CFI, or a return address with pointer-authentication bits, falls back). */
#ifndef PTOP_DELTA_WALK_H
#define PTOP_DELTA_WALK_H
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

struct delta_snapshot {
	const uint8_t *stack; /* the bytes from sp0 upward */
	uint64_t sp0, len;
	uint64_t pc, sp, fp;  /* the first frame's registers */
	uint64_t lr;          /* arm64: x30, the link register */
	/* The walk starts in the caller (pc = the return address at [sp0], sp = sp0 + 8) and leaf_pc is
	 * recorded first as the leaf (unwind_child.c, cur.from_caller). */
	bool from_caller;
	uint64_t leaf_pc;
};

enum delta_walk_result { DELTA_WALK_DONE, DELTA_WALK_FALLBACK };

/* mapped: whether a pc lies in one of the process's executable mappings (a frame outside them ends
 * the stack, truncated). pcs: lookup addresses (a return address minus one), leaf first. */
enum delta_walk_result delta_walk(Dwfl *dwfl, const struct delta_snapshot *s, bool (*mapped)(uint64_t pc, const void *arg),
				  const void *arg, uint64_t *pcs, uint32_t max, uint32_t *n, bool *truncated);
#endif
