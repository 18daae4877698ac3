#include "probe_ran.h"
#include <linux/types.h>
#include <stdio.h>
#include "probes.h"
#include "ptop.h"

_Static_assert((int)RAN_CPU == P_CPU && (int)RAN_OFFCPU == P_OFFCPU && (int)RAN_SYSCALLS == P_SYSCALLS,
	       "the ran flags are indexed by probe number");

/* What fires each program, and why that must happen inside any window on a running machine. */
static const char *const fired_by[RAN__COUNT] = {
	[RAN_CPU] = "the cpu-clock perf event ticks on every CPU, busy or idle",
	[RAN_OFFCPU] = "the sched/sched_switch tracepoint fires at every context switch, ptop's own sleeps among them",
	[RAN_SYSCALLS] = "the raw_syscalls/sys_enter tracepoint fires at every system call, ptop's own among them",
};

const char *probe_never_ran(int probe, bool attached, bool ran, double measured_sec, char *buf, size_t n)
{
	if (probe < 0 || probe >= RAN__COUNT || !attached || ran || measured_sec < PROBE_RAN_MIN_WINDOW_SEC)
		return NULL;
	snprintf(buf, n,
		 "attached but never ran: the kernel ran its BPF program 0 times in the %.1f s window, though %s; "
		 "this axis is absent, not zero (take the capture again)",
		 measured_sec, fired_by[probe]);
	return buf;
}
