/* The notes on samples lost before the unwinder or not held back after an exec (report.h loss_notes): how
 * many, per axis, why, and whether the loss can bias the shares. The issue that asked for them
 * measured 29% of a capture's samples lost to a full ring buffer with the notes saying nothing. */
#include "report.h"
#include <inttypes.h>
#include <stdio.h>

/* A full ring buffer refuses a record that does not fit in what is left: the largest snapshots
 * (the deepest user stacks copy the most bytes) first, while small ones still fit. */
#define RINGBUF_BIAS                                                                                  \
	"a full ring buffer refuses the largest snapshots first, so samples of deep stacks are under-counted " \
	"and the shares lean toward shallow stacks (fewer busy threads or a lower --frequency avoid it)"

uint64_t samples_taken(const struct report *r, int i)
{
	return r->stat[PTOP_STAT(i, STAT_SAMPLES)] + (PROBES[i].samples_include_lost ? 0 : r->stat[PTOP_STAT(i, STAT_LOST)]);
}

/* The axis's samples lost in the kernel (its STAT_LOST): by cause, the ring buffer's called biased.
 * false when none was. */
static bool kernel_loss_note(const struct report *r, int i, char *out, size_t len)
{
	const struct probe_desc *d = &PROBES[i];
	uint64_t lost = r->stat[PTOP_STAT(i, STAT_LOST)];
	if (lost == 0)
		return false;
	uint64_t full = d->unwinds ? r->stat[PTOP_STAT(i, STAT_RINGBUF_FULL)] : 0;
	if (full > lost)
		full = lost; /* per-CPU counters read one after the other: never say more than was lost */
	uint64_t all = samples_taken(r, i);
	int off = snprintf(out, len, "%s: %" PRIu64 " of %" PRIu64 " samples (%.1f%%) were lost in the kernel (counted in "
			   "summary.lost):", d->name, lost, all, all ? 100.0 * (double)lost / (double)all : 0.0);
	if (full && off > 0 && (size_t)off < len)
		off += snprintf(out + off, len - (size_t)off, " %" PRIu64 " found the ring buffer to the unwinder full: " RINGBUF_BIAS "%s",
				full, full < lost ? ";" : "");
	if (full < lost && off > 0 && (size_t)off < len)
		snprintf(out + off, len - (size_t)off, " %" PRIu64 " %s", lost - full, d->lost_other);
	return true;
}

size_t loss_notes(const struct report *r, const struct probes *p, const char **notes)
{
	static char kernel_note[P__COUNT][600], kstack_note[P__COUNT][240], unheld_note[P__COUNT][400];
	size_t n = 0;
	for (int i = 0; i < P__COUNT; i++)
		if (p->attached[i] && kernel_loss_note(r, i, kernel_note[i], sizeof(kernel_note[i])))
			notes[n++] = kernel_note[i];
	for (int i = 0; i < P__COUNT; i++)
		if (p->attached[i] && r->stat[PTOP_STAT(i, STAT_KSTACK_LOST)]) {
			snprintf(kstack_note[i], sizeof(kstack_note[i]),
				 "%s: %" PRIu64 " samples lost their kernel frames (the kernel's stack map was full or colliding): "
				 "they are in the stacks with their user frames only",
				 probe_name(i), r->stat[PTOP_STAT(i, STAT_KSTACK_LOST)]);
			notes[n++] = kstack_note[i];
		}
	for (int i = 0; i < P__COUNT; i++)
		if (p->attached[i] && r->unwound.unheld[i]) {
			snprintf(unheld_note[i], sizeof(unheld_note[i]),
				 "%s: %" PRIu64 " samples of processes that had just exec'd were unwound before ptop had the new "
				 "image's mappings (the unwinder's store of held samples was full): their stacks may end "
				 "[truncated] where the old image's mappings did not cover them",
				 probe_name(i), r->unwound.unheld[i]);
			notes[n++] = unheld_note[i];
		}
	return n;
}
