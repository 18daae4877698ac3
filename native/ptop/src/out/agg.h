/* Aggregation of symbolized stacks: different addresses in one function fold into one stack. */
#ifndef PTOP_AGG_H
#define PTOP_AGG_H
#include "strtab.h"
#include <stddef.h>

struct agg {
	struct strmap index;
	struct agg_item {
		int pid;
		int *ids;
		size_t n;
		double value, total_ns;
		double events; /* the samples, waits or calls in value (summary.samples counts them) */
	} *items;
	size_t n;
};

/* What a full stream left out of one axis (output.h, PTOP_STREAM_BUDGET). */
struct left_out {
	size_t stacks;
	double value, events;
};

/* One more stack (frame ids root first) of pid, holding `events` samples, waits or calls; total_ns < 0:
 * the axis has no time beside its value. */
void agg_add(struct agg *a, int pid, const int *ids, size_t n, double value, double events, double total_ns);
/* Writes the stacks, largest first (when the stream reaches its budget, what is left out is the
 * rarest), and empties a. */
struct left_out agg_emit(struct agg *a, const char *axis);
#endif
