// SPDX-License-Identifier: GPL-2.0
/* The `cpu` probe: a perf event on every CPU's clock (probes.c opens one per CPU at the asked
 * frequency); a target thread on the CPU gets a stack snapshot and its kernel stack. */
#include "snapshot.bpf.h"

/* Set by ptop's budget (collector/budget.c): above 1, a sample is kept with probability 1 / it, so
 * that ptop's CPU stays within its bound; the unwinder weighs each kept one accordingly. */
volatile __u32 cpu_keep_one_in = 0;

SEC("perf_event")
int on_cpu_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;
	mark_ran(P_CPU);
	if (!is_target(tgid) || !in_window())
		return 0;
	__u32 every = cpu_keep_one_in;
	if (every > 1 && bpf_get_prandom_u32() % every != 0)
		return 0;
	__s32 kstack = bpf_get_stackid(ctx, &stacks, 0);
	stat_inc(PTOP_STAT(P_CPU, STAT_SAMPLES));
	/* -EFAULT: no kernel stack (user-mode sample). Anything else loses the kernel stack only.
	 * One sample counts as lost once, whether its kernel stack, its snapshot or both failed. */
	int rc = emit_snapshot(P_CPU, 0, tgid, (__u32)id, kstack, 0, 1);
	if (rc == -EAGAIN)
		stat_inc(PTOP_STAT(P_CPU, STAT_RINGBUF_FULL));
	if (rc != 0 || (kstack < 0 && kstack != -EFAULT))
		stat_inc(PTOP_STAT(P_CPU, STAT_LOST));
	return 0;
}
