// SPDX-License-Identifier: GPL-2.0
/* The `offcpu` probe: at a context switch, a target thread that blocks gets a stack snapshot (a
 * block record), and the thread switched in, if it was blocked, a wake record with the time it
 * waited; the unwinder joins the two by their sequence number. */
#include "snapshot.bpf.h"

struct offcpu_start {
	__u64 ts;
	__u64 seq;
};

struct {
	PTOP_PER_THREAD_MAP(struct offcpu_start);
} offcpu_start SEC(".maps");

/* Per-CPU sequence for offcpu block records: (cpu << 48 | n) is unique per block. */
struct {
	PTOP_PER_CPU_SLOT(__u64);
} block_seq SEC(".maps");

SEC("tracepoint/sched/sched_switch")
int on_sched_switch(struct trace_event_raw_sched_switch *ctx)
{
	mark_ran(P_OFFCPU);
	if (!in_window())
		return 0;
	__u64 now = bpf_ktime_get_ns();
	/* The tracepoint fires while `prev` is still current: its stacks are the ones we want. */
	__u32 prev_tid = ctx->prev_pid;
	__u32 prev_tgid = bpf_get_current_pid_tgid() >> 32;
	if (prev_tid != 0 && ctx->prev_state != 0 && is_target(prev_tgid)) {
		__u32 zero = 0;
		__u64 *n = bpf_map_lookup_elem(&block_seq, &zero);
		if (n) {
			*n += 1;
			struct offcpu_start s = { .ts = now, .seq = ((__u64)bpf_get_smp_processor_id() << 48) | (*n & 0xffffffffffffull) };
			__s32 kstack = bpf_get_stackid(ctx, &stacks, 0);
			int rc = emit_snapshot(P_OFFCPU, SAMPLE_F_AWAITS_WAKE, prev_tgid, prev_tid, kstack, s.seq, 0);
			if (rc == -EAGAIN)
				stat_inc(PTOP_STAT(P_OFFCPU, STAT_RINGBUF_FULL));
			if (rc != 0 || bpf_map_update_elem(&offcpu_start, &prev_tid, &s, BPF_ANY) != 0)
				stat_inc(PTOP_STAT(P_OFFCPU, STAT_LOST));
		}
	}
	__u32 next_tid = ctx->next_pid;
	struct offcpu_start *st = bpf_map_lookup_elem(&offcpu_start, &next_tid);
	if (st) {
		if (now > st->ts) {
			/* Built in the ring buffer, not on the BPF stack: a sample_hdr there (its register
			 * file) took 384 of this program's bytes, and with a walker's two frames called from
			 * emit_snapshot above, 6.1's 512-byte limit on the combined stack was passed. */
			struct sample_hdr *w = bpf_ringbuf_reserve(&samples, sizeof(*w), 0);
			if (w) {
				__builtin_memset(w, 0, sizeof(*w));
				w->kind = P_OFFCPU;
				w->flags = SAMPLE_F_WAKE;
				w->tid = next_tid;
				w->seq = st->seq;
				w->value = now - st->ts;
				w->kstack = -1;
				bpf_ringbuf_submit(w, ringbuf_wakeup());
				stat_inc(PTOP_STAT(P_OFFCPU, STAT_SAMPLES));
			} else {
				stat_inc(PTOP_STAT(P_OFFCPU, STAT_RINGBUF_FULL));
				stat_inc(PTOP_STAT(P_OFFCPU, STAT_LOST));
			}
		}
		bpf_map_delete_elem(&offcpu_start, &next_tid);
	}
	return 0;
}
