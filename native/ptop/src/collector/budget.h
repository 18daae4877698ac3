/* ptop's own CPU, bounded per node (issue 35; README "The sample budget"): at most 2% of one core
 * per busy target CPU, never under 1% of a core (the /proc rescans cost that whatever the samples),
 * at most one core in all, whatever the number of busy target threads. Measured over 2-s stretches
 * of the window (ptop's process and its children, CPU clocks); when a stretch went over, the cpu
 * probe keeps one sample in N from then on (at random, in BPF, before the snapshot is copied; N
 * only grows) and the unwinder counts each kept one N times, so that a stack's value stays in
 * samples at the requested period (the axis record's period_ns) and the shares those of the whole
 * window. The summary states the effective frequency (the window's average) and, when lowered, a
 * note. */
#ifndef PTOP_BUDGET_H
#define PTOP_BUDGET_H
#include "probes.h"
#include <stdbool.h>

/* Window open, the cpu probe at requested_hz (0: not attached: nothing to govern). */
void budget_begin(struct probes *p, int requested_hz);
/* During the window, at every rescan: measures and lowers when a stretch went over. */
void budget_tick(struct probes *p);
/* Window closed: the last stretch counts toward the average frequency. */
void budget_end(void);
/* The cpu probe's summary members: ",\"effective_frequency_hz\":F" and, when lowered,
 * ",\"sample_weight\":{\"cpu\":N}" (one sample kept in N at the end); NULL when the cpu probe did not
 * run a window. */
char *budget_summary_json(void);
/* The note on a lowered frequency, or NULL. */
const char *budget_note(void);
#endif
