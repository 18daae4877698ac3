/* An attached machine-wide probe whose program never ran in the window: its axis is empty because
 * the probe did not fire, not because the targets were idle (ptop.h enum ran_slot). */
#ifndef PTOP_PROBE_RAN_H
#define PTOP_PROBE_RAN_H
#include <stdbool.h>
#include <stddef.h>

/* Below this window, a silent program is not a failure: ptop's own rescans (every 250 ms) are
 * what guarantees a context switch and a system call inside any window at least this long. */
#define PROBE_RAN_MIN_WINDOW_SEC 1.0

/* The reason to report for probe `probe` (probes.h P_*) when it is attached and `ran` is false
 * after a window of `measured_sec`, written to `buf`; NULL when there is nothing to report (it
 * ran, the window was too short, or the probe is not machine-wide). */
const char *probe_never_ran(int probe, bool attached, bool ran, double measured_sec, char *buf, size_t n);
#endif
