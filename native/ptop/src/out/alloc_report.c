/* The `alloc` summary notes (its notes hook, probe_table.c): what is exact and what is estimated,
 * and the target processes no uprobe reached. */
#include "alloc.h"
#include "alloc_stats.h"
#include "report.h"
#include <inttypes.h>
#include <stdio.h>

/* A process without a uprobe allocates unseen: the totals are then the covered ones'. NULL when
 * every target process was covered. */
static const char *coverage_note(void)
{
	static char note[900];
	struct alloc_coverage c = alloc_coverage();
	if (c.covered >= c.processes)
		return NULL;
	int off = snprintf(note, sizeof(note),
			   "alloc: %zu of %zu target processes got no allocation uprobe, so their allocations are "
			   "not counted:", c.processes - c.covered, c.processes);
	const char *sep = "";
	char bound[96];
	snprintf(bound, sizeof(bound), "over the bound of %d processes waiting for their libc", PTOP_MAX_TARGETS);
	struct { size_t n; const char *why; } parts[] = {
		{ c.gone, "exited before their libc was found" },
		{ c.no_entry_point, "no libc or allocation entry point found within 2 s" },
		{ c.not_queued, bound },
		{ c.still_pending, "still waiting for their libc when the window closed" },
	};
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (parts[i].n && off > 0 && (size_t)off < sizeof(note)) {
			off += snprintf(note + off, sizeof(note) - (size_t)off, "%s %zu %s", sep, parts[i].n, parts[i].why);
			sep = ";";
		}
	if (c.no_entry_point && off > 0 && (size_t)off < sizeof(note))
		snprintf(note + off, sizeof(note) - (size_t)off, " (last: %s)", alloc_why_none());
	return note;
}

size_t alloc_notes(const struct report *r, const struct probes *p, const char **notes)
{
	static char note[640];
	/* Exact: every byte and call (BPF counters). Estimated: the split between stacks. */
	snprintf(note, sizeof(note),
		 "alloc: %" PRIu64 " bytes in %" PRIu64 " calls to %s, counted exactly (the summary's totals); "
		 "the split between stacks is estimated from %" PRIu64 " stacks, one per %u KiB on average at "
		 "random intervals, each credited with the bytes since the previous one (%.0f bytes in stacks; "
		 "%" PRIu64 " lost)",
		 r->stat[STAT_ALLOC_BYTES], r->stat[STAT_ALLOC_CALLS], alloc_functions()[0] ? alloc_functions() : "no function",
		 r->stat[PTOP_STAT(P_ALLOC, STAT_SAMPLES)], PTOP_ALLOC_PERIOD / 1024, r->axes[P_ALLOC].total,
		 r->stat[PTOP_STAT(P_ALLOC, STAT_LOST)] + r->unwound.full[P_ALLOC] + r->unwound.no_memory[P_ALLOC]);
	size_t n = 0;
	notes[n++] = note;
	const char *coverage = coverage_note();
	if (coverage)
		notes[n++] = coverage;
	return n;
}
