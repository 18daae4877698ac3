/* Where a harness-made ring-buffer record's registers go: the pc and sp (and a frame pointer near
 * the stack, as elfutils' frame-pointer fallback expects) in the arch's user pt_regs layout, the
 * one the BPF programs copy (ptop.h, struct sample_hdr). */
#ifndef PTOP_HARNESS_SAMPLE_REGS_H
#define PTOP_HARNESS_SAMPLE_REGS_H
#include <linux/types.h>
#include "ptop.h"

static inline void sample_set_regs(struct sample_hdr *h, uint64_t pc, uint64_t sp)
{
	h->regs[PTOP_REG_PC] = pc;
	h->regs[PTOP_REG_SP] = sp;
	h->regs[PTOP_REG_FP] = sp + 64;
}
#endif
