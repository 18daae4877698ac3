#include "unwind_wire.h"
#include <linux/types.h>
#include "ptop.h"
#include <math.h>
#include <string.h>

int unwind_check_result(const uint8_t *buf, size_t n, struct unwound_hdr *h, uint64_t *failed)
{
	if (n < sizeof(*h))
		return UNWIND_REC_BAD;
	memcpy(h, buf, sizeof(*h));
	if (h->axis == UINT32_MAX) {
		/* a count: finite, whole, not negative, not past what a u64 holds */
		if (n != sizeof(*h) || !(h->value >= 0 && h->value < 18446744073709551616.0) || h->value != floor(h->value))
			return UNWIND_REC_BAD;
		*failed = (uint64_t)h->value;
		return UNWIND_REC_TRAILER;
	}
	if ((h->axis != P_CPU && h->axis != P_OFFCPU && h->axis != P_LOCKS && h->axis != P_ALLOC) || h->npcs > PTOP_MAX_UNWIND_DEPTH ||
	    h->interp_len > PTOP_INTERP_MAX || n != sizeof(*h) + h->npcs * 8ull + h->interp_len ||
	    !(h->value >= 0 && h->value < 18446744073709551616.0) ||
	    !(h->events >= 0 && h->events < 18446744073709551616.0) || h->kstack >= PTOP_MAX_STACKS ||
	    (h->axis != P_LOCKS && h->lock != 0))
		return UNWIND_REC_BAD;
	return UNWIND_REC_STACK;
}
