/* Where a harness-made ring-buffer record's registers go: the pc and sp (and a frame pointer near
 * the stack, as elfutils' frame-pointer fallback expects) in the arch's user pt_regs layout, the
 * one the BPF programs copy (ptop.h, struct sample_hdr). */
#ifndef PTOP_HARNESS_SAMPLE_REGS_H
#define PTOP_HARNESS_SAMPLE_REGS_H
#include <linux/types.h>
#include "ptop.h"

static inline void sample_set_regs(struct sample_hdr *h, uint64_t pc, uint64_t sp)
{
#if defined(__x86_64__)
	h->regs[16] = pc;
	h->regs[19] = sp;
	h->regs[4] = sp + 64;
#elif defined(__aarch64__)
	h->regs[32] = pc;
	h->regs[31] = sp;
	h->regs[29] = sp + 64;
#else
#error "unsupported architecture"
#endif
}
#endif
