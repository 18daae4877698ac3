// SPDX-License-Identifier: GPL-2.0
/* A target's execve: its exec generation (the targets map's value) goes up by one, so that each
 * later sample names its image (sample_hdr.gen) and neither the unwinder nor the symbolizer reads
 * it against an earlier image's mappings, even one at the same addresses (unwind_child.c,
 * symbolize.c). The tracepoint fires once the new image is in place (after begin_new_exec and the
 * loader); samples taken inside execve before it are marked (snapshot.bpf.h). A BTF tracepoint, not
 * a tracefs one: the cpu probe needs no tracefs and neither does this. It runs whenever a probe
 * that unwinds is attached, inside the window or not (an exec in the warmup changes the mappings
 * too), and costs untargeted execs one hash lookup. */
#include "shared.bpf.h"

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	ptop_gen_t *gen = tgid ? bpf_map_lookup_elem(&targets, &tgid) : NULL;
	if (gen)
		__sync_fetch_and_add(gen, 1); /* the samples from here on are the new image's */
	return 0;
}
