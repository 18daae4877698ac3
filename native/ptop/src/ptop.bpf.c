// SPDX-License-Identifier: GPL-2.0
/* The kernel half of ptop: three probes that aggregate in maps, filtered by the target tgid set.
 * User space fills `targets`, sets `start_ns` when the warmup ends and `stopped` before it reads
 * the maps, so events outside the measurement window cost one map lookup and nothing else. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "ptop.h"

char LICENSE[] SEC("license") = "GPL";

/* Window bounds in CLOCK_MONOTONIC ns (bpf_ktime_get_ns); 0 = not started yet. */
volatile __u64 start_ns = 0;
volatile __u32 stopped = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PTOP_MAX_TARGETS);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, PTOP_MAX_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PTOP_MAX_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PTOP_MAX_COUNTS);
	__type(key, struct stack_key);
	__type(value, __u64);
} cpu_counts SEC(".maps");

struct offcpu_start {
	__u64 ts;
	struct stack_key key;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* tracepoint programs only: allocate on demand */
	__uint(max_entries, 65536);
	__type(key, __u32); /* tid */
	__type(value, struct offcpu_start);
} offcpu_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* tracepoint programs only: allocate on demand */
	__uint(max_entries, PTOP_MAX_COUNTS);
	__type(key, struct stack_key);
	__type(value, __u64);
} offcpu_ns SEC(".maps");

struct sys_start_val {
	__u64 ts;
	__u64 nr;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* tracepoint programs only: allocate on demand */
	__uint(max_entries, 65536);
	__type(key, __u32); /* tid */
	__type(value, struct sys_start_val);
} sys_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* tracepoint programs only: allocate on demand */
	__uint(max_entries, 16384);
	__type(key, struct sys_key);
	__type(value, struct sys_val);
} sys_counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_inc(__u32 slot)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &slot);
	if (v)
		(*v)++;
}

static __always_inline int in_window(void)
{
	return start_ns != 0 && !stopped && bpf_ktime_get_ns() >= start_ns;
}

static __always_inline int is_target(__u32 tgid)
{
	return tgid != 0 && bpf_map_lookup_elem(&targets, &tgid) != NULL;
}

static __always_inline void add_u64(void *map, struct stack_key *key, __u64 delta, __u32 lost_slot)
{
	__u64 *v = bpf_map_lookup_elem(map, key);
	if (v) {
		__sync_fetch_and_add(v, delta);
		return;
	}
	if (bpf_map_update_elem(map, key, &delta, BPF_NOEXIST) != 0) {
		v = bpf_map_lookup_elem(map, key);
		if (v)
			__sync_fetch_and_add(v, delta);
		else
			stat_inc(lost_slot);
	}
}

SEC("perf_event")
int on_cpu_sample(struct bpf_perf_event_data *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	if (!is_target(tgid) || !in_window())
		return 0;
	struct stack_key key = { .tgid = tgid };
	key.ustack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	key.kstack = bpf_get_stackid(ctx, &stacks, 0);
	/* -EFAULT: no stack of that kind (user-mode sample has no kernel stack). Anything else
	 * (-ENOMEM, -EEXIST on a full or colliding stack map) loses the stack, not the sample. */
	if ((key.ustack < 0 && key.ustack != -14) || (key.kstack < 0 && key.kstack != -14))
		stat_inc(STAT_CPU_LOST);
	stat_inc(STAT_CPU_SAMPLES);
	add_u64(&cpu_counts, &key, 1, STAT_CPU_LOST);
	return 0;
}

SEC("tracepoint/sched/sched_switch")
int on_sched_switch(struct trace_event_raw_sched_switch *ctx)
{
	if (!in_window())
		return 0;
	__u64 now = bpf_ktime_get_ns();
	/* The tracepoint fires while `prev` is still current: its stacks are the ones we want. */
	__u32 prev_tid = ctx->prev_pid;
	__u32 prev_tgid = bpf_get_current_pid_tgid() >> 32;
	if (prev_tid != 0 && ctx->prev_state != 0 && is_target(prev_tgid)) {
		struct offcpu_start s = { .ts = now };
		s.key.tgid = prev_tgid;
		s.key.ustack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
		s.key.kstack = bpf_get_stackid(ctx, &stacks, 0);
		if (bpf_map_update_elem(&offcpu_start, &prev_tid, &s, BPF_ANY) != 0)
			stat_inc(STAT_OFFCPU_LOST);
	}
	__u32 next_tid = ctx->next_pid;
	struct offcpu_start *st = bpf_map_lookup_elem(&offcpu_start, &next_tid);
	if (st) {
		if (now > st->ts) {
			struct stack_key key = st->key;
			add_u64(&offcpu_ns, &key, now - st->ts, STAT_OFFCPU_LOST);
			stat_inc(STAT_OFFCPU_EVENTS);
		}
		bpf_map_delete_elem(&offcpu_start, &next_tid);
	}
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_enter")
int on_sys_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!is_target(id >> 32) || !in_window())
		return 0;
	__u32 tid = (__u32)id;
	struct sys_start_val v = { .ts = bpf_ktime_get_ns(), .nr = (__u64)ctx->id };
	if (bpf_map_update_elem(&sys_start, &tid, &v, BPF_ANY) != 0)
		stat_inc(STAT_SYS_LOST);
	return 0;
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
		__sync_fetch_and_add(&v->calls, 1);
		__sync_fetch_and_add(&v->total_ns, delta);
	} else {
		struct sys_val init = { .calls = 1, .total_ns = delta };
		if (bpf_map_update_elem(&sys_counts, &key, &init, BPF_NOEXIST) != 0) {
			v = bpf_map_lookup_elem(&sys_counts, &key);
			if (v) {
				__sync_fetch_and_add(&v->calls, 1);
				__sync_fetch_and_add(&v->total_ns, delta);
			} else {
				stat_inc(STAT_SYS_LOST);
				return 0;
			}
		}
	}
	stat_inc(STAT_SYS_EVENTS);
	return 0;
}
