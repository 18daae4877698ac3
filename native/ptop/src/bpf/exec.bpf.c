// SPDX-License-Identifier: GPL-2.0
/* A target's execve: the unwinder must not read the new image's samples against the old image's
 * mappings, nor drop them as unmapped until ptop's next look at /proc (unwind_child.c). A BTF
 * tracepoint, not a tracefs one: the cpu probe needs no tracefs and neither does this. It runs
 * whenever a probe that unwinds is attached, inside the window or not (an exec in the warmup
 * changes the mappings too), and costs untargeted execs one hash lookup. */
#include "shared.bpf.h"

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	if (stopped || !is_target(tgid))
		return 0;
	struct sample_hdr e = { .kind = SAMPLE_EXEC, .tgid = tgid, .tid = (__u32)old_pid, .kstack = -1,
				.time_ns = bpf_ktime_get_ns() };
	if (bpf_ringbuf_output(&samples, &e, sizeof(e), ringbuf_wakeup()) != 0)
		stat_inc(STAT_EXEC_LOST); /* the unwinder will not hold the new image's samples: said in a note */
	return 0;
}
