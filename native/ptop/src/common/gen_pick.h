/* Which image of a process names a sample's addresses, by exec generation (bpf/ptop.h
 * sample_hdr.gen): the image of the sample's own generation; when ptop never read that one's
 * mappings (it lived less than one scan, or exec'd again first), the nearest later image, whose
 * table was read right after it (and which, for the same binary exec'd again, has the same layout).
 * Never an earlier image: its addresses may be the same as the sample's and name other code. The
 * unwinder (unwind_child.c) and the symbolizer (symbolize.c) choose by this one rule, so that a
 * stack is named from the image it was unwound in. */
#ifndef PTOP_GEN_PICK_H
#define PTOP_GEN_PICK_H
#include <stdbool.h>
#include <stdint.h>

/* true when an image of generation cand serves a sample of generation want better than the best
 * so far (of generation best; none yet when !have_best). */
static inline bool gen_better(uint32_t want, uint32_t cand, bool have_best, uint32_t best)
{
	return cand >= want && (!have_best || cand < best);
}
#endif
