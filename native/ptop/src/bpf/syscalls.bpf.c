// SPDX-License-Identifier: GPL-2.0
/* The `syscalls` probe: per target process and system call, the calls and the time inside them,
 * aggregated in the kernel (`sys_counts`, read by user space at the end). No stack. */
#include "shared.bpf.h"

struct sys_start_val {
	__u64 ts;
	__u64 nr;
};

struct {
	PTOP_PER_THREAD_MAP(struct sys_start_val);
} sys_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* tracepoint programs only: allocate on demand */
	__uint(max_entries, 16384);
	__type(key, struct sys_key);
	__type(value, struct sys_val);
} sys_counts SEC(".maps");

SEC("tracepoint/raw_syscalls/sys_enter")
int on_sys_enter(struct trace_event_raw_sys_enter *ctx)
{
	mark_ran(P_SYSCALLS);
	__u64 id = bpf_get_current_pid_tgid();
	if (!is_target(id >> 32) || !in_window())
		return 0;
	__u32 tid = (__u32)id;
	struct sys_start_val v = { .ts = bpf_ktime_get_ns(), .nr = (__u64)ctx->id };
	if (bpf_map_update_elem(&sys_start, &tid, &v, BPF_ANY) != 0)
		stat_inc(PTOP_STAT(P_SYSCALLS, STAT_LOST));
	return 0;
}

/* One more call of `delta` ns on a syscall's counters (shared by every CPU: atomic adds). */
static __always_inline void sys_val_add(struct sys_val *v, __u64 delta)
{
	__sync_fetch_and_add(&v->calls, 1);
	__sync_fetch_and_add(&v->total_ns, delta);
}

SEC("tracepoint/raw_syscalls/sys_exit")
int on_sys_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	if (stopped)
		return 0;
	struct sys_start_val *st = bpf_map_lookup_elem(&sys_start, &tid);
	if (!st)
		return 0;
	__u64 now = bpf_ktime_get_ns();
	struct sys_key key = { .tgid = id >> 32, .nr = (__u32)st->nr };
	__u64 delta = now > st->ts ? now - st->ts : 0;
	bpf_map_delete_elem(&sys_start, &tid);
	struct sys_val *v = bpf_map_lookup_elem(&sys_counts, &key);
	if (v) {
		sys_val_add(v, delta);
	} else {
		struct sys_val init = { .calls = 1, .total_ns = delta };
		if (bpf_map_update_elem(&sys_counts, &key, &init, BPF_NOEXIST) != 0) {
			v = bpf_map_lookup_elem(&sys_counts, &key);
			if (v) {
				sys_val_add(v, delta);
			} else {
				stat_inc(PTOP_STAT(P_SYSCALLS, STAT_LOST));
				return 0;
			}
		}
	}
	stat_inc(PTOP_STAT(P_SYSCALLS, STAT_SAMPLES));
	return 0;
}
