/* The `locks` probe's attach: the futex syscall tracepoints (bpf/locks.bpf.c). */
#include "probes.h"
#include "locks_report.h"
#include "ptop.skel.h"
#include <bpf/libbpf.h>
#include <stdio.h>

/* futex_waitv (Linux 5.16) is covered where its tracepoints exist; futex itself is required. */
static bool waitv_covered;

bool locks_waitv_covered(void)
{
	return waitv_covered;
}

bool locks_load(struct probes *p, int probe, bool want)
{
	bool waitv = want && tracepoint_exists("syscalls", "sys_enter_futex_waitv");
	probes_load_programs(p, probe, want);
	bpf_program__set_autoload(p->skel->progs.on_futex_waitv_enter, waitv);
	bpf_program__set_autoload(p->skel->progs.on_futex_waitv_exit, waitv);
	waitv_covered = waitv;
	return want;
}

void locks_attach(struct probes *p, int probe, int frequency_hz)
{
	if (!tracepoint_exists("syscalls", "sys_enter_futex")) {
		snprintf(p->reason[probe], sizeof(p->reason[0]),
			 "the kernel has no syscalls:sys_enter_futex tracepoint (built without CONFIG_FTRACE_SYSCALLS)");
		return;
	}
	probes_attach_tracepoints(p, probe, p->skel->progs.on_futex_enter, p->skel->progs.on_futex_exit);
	if (p->attached[probe] && waitv_covered) {
		int before = p->attached[probe];
		p->attached[probe] = false;
		probes_attach_tracepoints(p, probe, p->skel->progs.on_futex_waitv_enter, p->skel->progs.on_futex_waitv_exit);
		waitv_covered = p->attached[probe];
		p->attached[probe] = before;
		p->reason[probe][0] = 0;
	}
}
