#include "probe_ran.h"
#include "probe_table.h"
#include <stdio.h>

const char *probe_never_ran(int probe, bool attached, bool ran, double measured_sec, char *buf, size_t n)
{
	if (probe < 0 || probe >= P__COUNT || !PROBES[probe].machine_wide || !attached || ran ||
	    measured_sec < PROBE_RAN_MIN_WINDOW_SEC)
		return NULL;
	snprintf(buf, n,
		 "attached but never ran: the kernel ran its BPF program 0 times in the %.1f s window, though %s; "
		 "this axis is absent, not zero (take the capture again)",
		 measured_sec, PROBES[probe].fired_by);
	return buf;
}
