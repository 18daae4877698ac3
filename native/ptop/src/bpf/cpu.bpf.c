// SPDX-License-Identifier: GPL-2.0
/* The `cpu` probe: a perf event on every CPU's clock (probes.c opens one per CPU at the asked
 * frequency); a target thread on the CPU gets a stack snapshot and its kernel stack. */
#include "snapshot.bpf.h"

/* Set by ptop's budget (collector/budget.c): above 1, a sample is kept with probability 1 / it, so
 * that ptop's CPU stays within its bound; each kept one stands for that many, in its record's value
 * (SAMPLE_F_COUNTS) and in every count below, so that the summary's samples and lost sum with the
 * stacks' values however the budget changed during the window. */
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
	__u64 counts = every > 1 ? every : 1;
	__s32 kstack = bpf_get_stackid(ctx, &stacks, 0);
	stat_add(PTOP_STAT(P_CPU, STAT_SAMPLES), counts);
	/* -EFAULT: no kernel stack (user-mode sample). Any other failure loses the kernel frames only:
	 * the sample is in the stream, counted apart from the lost (in no stack). */
	int rc = emit_snapshot(P_CPU, SAMPLE_F_COUNTS, tgid, (__u32)id, kstack, 0, counts);
	if (rc == -EAGAIN)
		stat_add(PTOP_STAT(P_CPU, STAT_RINGBUF_FULL), counts);
	if (rc != 0)
		stat_add(PTOP_STAT(P_CPU, STAT_LOST), counts);
	else if (kstack < 0 && kstack != -EFAULT)
		stat_add(PTOP_STAT(P_CPU, STAT_KSTACK_LOST), counts);
	return 0;
}
