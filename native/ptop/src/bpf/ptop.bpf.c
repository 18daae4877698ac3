// SPDX-License-Identifier: GPL-2.0
/* The kernel half of ptop: three probes that aggregate in maps, filtered by the target tgid set.
 * User space fills `targets`, sets `start_ns` when the warmup ends and `stopped` before it reads
 * the maps, so events outside the measurement window cost one map lookup and nothing else. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "ptop.h"
#include "python.bpf.h"

/* errno values are macros, so vmlinux.h does not carry them. */
#ifndef EFAULT
#define EFAULT 14
#endif

char LICENSE[] SEC("license") = "GPL";

/* Window bounds in CLOCK_MONOTONIC ns (bpf_ktime_get_ns); 0 = not started yet. */
volatile __u64 start_ns = 0;
volatile __u32 stopped = 0;
/* One flag per machine-wide program (ptop.h enum ran_slot): set once, read by user space at the end. */
volatile __u8 ran[RAN__COUNT] = {};

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


struct offcpu_start {
	__u64 ts;
	__u64 seq;
};

struct {
	/* LRU: a thread that dies mid-wait never reaches the event that deletes its entry; with a
	 * plain hash such entries would pile up over a long window until every new start is lost. */
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32); /* tid */
	__type(value, struct offcpu_start);
} offcpu_start SEC(".maps");


struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PTOP_RINGBUF_BYTES);
} samples SEC(".maps");

#define SNAP_BYTES (sizeof(struct sample_hdr) + PTOP_INTERP_MAX + PTOP_STACK_MAX)

struct snapshot {
	__u8 buf[SNAP_BYTES + 4096]; /* slack: lets the verifier bound a page copy at a masked offset */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct snapshot);
} scratch SEC(".maps");

/* Per-CPU sequence for offcpu block records: (cpu << 48 | n) is unique per block. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} block_seq SEC(".maps");

struct sys_start_val {
	__u64 ts;
	__u64 nr;
};

struct {
	/* LRU: a thread that dies mid-wait never reaches the event that deletes its entry; with a
	 * plain hash such entries would pile up over a long window until every new start is lost. */
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
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

static __always_inline void stat_add(__u32 slot, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &slot);
	if (v)
		*v += n;
}

static __always_inline int in_window(void)
{
	return start_ns != 0 && !stopped && bpf_ktime_get_ns() >= start_ns;
}

/* A plain load per run, and one store per window: no atomic, no map lookup on the hot path. */
static __always_inline void mark_ran(__u32 slot)
{
	if (start_ns != 0 && slot < RAN__COUNT && !ran[slot])
		ran[slot] = 1;
}

static __always_inline int is_target(__u32 tgid)
{
	return tgid != 0 && bpf_map_lookup_elem(&targets, &tgid) != NULL;
}


/* Wake the unwinder only once a quarter of the ring buffer is filled: a wakeup per record made
 * every sample cost the target a cross-CPU wakeup (at 30k lock waits/s, most of the probe's cost);
 * the unwinder also polls every 100 ms, so records never wait longer than that. */
static __always_inline __u64 ringbuf_wakeup(void)
{
	return bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA) > PTOP_RINGBUF_BYTES / 4 ? BPF_RB_FORCE_WAKEUP
										   : BPF_RB_NO_WAKEUP;
}

/* Copies the current task's user registers and the top of its user stack into one ring-buffer
 * record. The stack is read page by page from sp: a read that crosses into an unmapped page
 * fails as a whole, so the copy stops at the last readable page instead. */
static __always_inline int emit_snapshot(__u32 kind, __u32 tgid, __u32 tid, __s32 kstack, __u64 seq, __u64 value)
{
	__u32 zero = 0;
	struct snapshot *snap = bpf_map_lookup_elem(&scratch, &zero);
	if (!snap)
		return -1;
	struct sample_hdr *h = (struct sample_hdr *)snap->buf;
	h->kind = kind;
	h->tgid = tgid;
	h->tid = tid;
	h->kstack = kstack;
	h->seq = seq;
	h->value = value;
	h->time_ns = bpf_ktime_get_ns();
	h->stack_len = 0;
	h->interp_len = 0;
	struct task_struct *task = bpf_get_current_task_btf();
	void *regs = (void *)bpf_task_pt_regs(task);
	/* The head of the arch's pt_regs is its user register file, in a layout fixed by the ABI
	 * (x86-64: r15 … ss, 21 slots, sp at 19; arm64: x0..x30, sp, pc, pstate, sp at 31). */
#if defined(__TARGET_ARCH_x86)
	const __u32 rsz = 21 * 8, sp_slot = 19;
#else
	const __u32 rsz = 34 * 8, sp_slot = 31;
#endif
	if (!regs || bpf_probe_read_kernel(h->regs, rsz, regs) != 0) {
		stat_inc(STAT_SNAPSHOT_FAILED);
		return -1;
	}
	__u64 sp = h->regs[sp_slot];
	__u8 *stack = snap->buf + sizeof(struct sample_hdr);
	__u32 len = 0;
	if (sp) {
		__u32 first = 4096 - (sp & 4095);
		if (first > PTOP_STACK_MAX)
			first = PTOP_STACK_MAX;
		if (bpf_probe_read_user(stack, first & 8191, (void *)sp) == 0) {
			len = first;
			for (int i = 0; i < PTOP_STACK_MAX / 4096; i++) {
				if (len + 4096 > PTOP_STACK_MAX)
					break;
				if (bpf_probe_read_user(stack + (len & (PTOP_STACK_MAX - 1)), 4096, (void *)(sp + len)) != 0)
					break;
				len += 4096;
			}
		}
	}
	if (len == 0)
		stat_inc(STAT_SNAPSHOT_FAILED);
	h->stack_len = len;
	/* The interpreter-frames section follows the stack (python.bpf.h; 0 bytes for other processes). */
	__u32 ilen = 0;
	if (len <= PTOP_STACK_MAX)
		ilen = interp_collect(tgid, stack + len, PTOP_INTERP_MAX);
	if (ilen > PTOP_INTERP_MAX)
		ilen = 0;
	h->interp_len = ilen;
	__u64 size = sizeof(struct sample_hdr) + (__u64)len + ilen;
	if (size > SNAP_BYTES)
		return -1;
	return bpf_ringbuf_output(&samples, snap->buf, size, ringbuf_wakeup());
}


SEC("perf_event")
int on_cpu_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;
	mark_ran(RAN_CPU);
	if (!is_target(tgid) || !in_window())
		return 0;
	__s32 kstack = bpf_get_stackid(ctx, &stacks, 0);
	stat_inc(STAT_CPU_SAMPLES);
	/* -EFAULT: no kernel stack (user-mode sample). Anything else loses the kernel stack only.
	 * One sample counts as lost once, whether its kernel stack, its snapshot or both failed. */
	int lost = kstack < 0 && kstack != -EFAULT;
	if (emit_snapshot(SAMPLE_CPU, tgid, (__u32)id, kstack, 0, 0) != 0)
		lost = 1;
	if (lost)
		stat_inc(STAT_CPU_LOST);
	return 0;
}

SEC("tracepoint/sched/sched_switch")
int on_sched_switch(struct trace_event_raw_sched_switch *ctx)
{
	mark_ran(RAN_OFFCPU);
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
			if (emit_snapshot(SAMPLE_OFFCPU_BLOCK, prev_tgid, prev_tid, kstack, s.seq, 0) != 0 ||
			    bpf_map_update_elem(&offcpu_start, &prev_tid, &s, BPF_ANY) != 0)
				stat_inc(STAT_OFFCPU_LOST);
		}
	}
	__u32 next_tid = ctx->next_pid;
	struct offcpu_start *st = bpf_map_lookup_elem(&offcpu_start, &next_tid);
	if (st) {
		if (now > st->ts) {
			struct sample_hdr w = { .kind = SAMPLE_OFFCPU_WAKE, .tid = next_tid, .seq = st->seq, .value = now - st->ts, .kstack = -1 };
			if (bpf_ringbuf_output(&samples, &w, sizeof(w), ringbuf_wakeup()) == 0)
				stat_inc(STAT_OFFCPU_EVENTS);
			else
				stat_inc(STAT_OFFCPU_LOST);
		}
		bpf_map_delete_elem(&offcpu_start, &next_tid);
	}
	return 0;
}

/* A target's execve: the unwinder must not read the new image's samples against the old image's
 * mappings, nor drop them as unmapped until ptop's next look at /proc (unwind_child.c). A BTF
 * tracepoint, not a tracefs one: the cpu probe needs no tracefs and neither does this. It runs
 * whenever a probe that unwinds is attached, inside the window or not (an exec in the warmup
 * changes the mappings too), and costs untargeted execs one hash lookup. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	if (stopped || !is_target(tgid))
		return 0;
	struct sample_hdr e = { .kind = SAMPLE_EXEC, .tgid = tgid, .tid = (__u32)old_pid, .kstack = -1,
				.time_ns = bpf_ktime_get_ns() };
	bpf_ringbuf_output(&samples, &e, sizeof(e), ringbuf_wakeup());
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_enter")
int on_sys_enter(struct trace_event_raw_sys_enter *ctx)
{
	mark_ran(RAN_SYSCALLS);
	__u64 id = bpf_get_current_pid_tgid();
	if (!is_target(id >> 32) || !in_window())
		return 0;
	__u32 tid = (__u32)id;
	struct sys_start_val v = { .ts = bpf_ktime_get_ns(), .nr = (__u64)ctx->id };
	if (bpf_map_update_elem(&sys_start, &tid, &v, BPF_ANY) != 0)
		stat_inc(STAT_SYS_LOST);
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
				stat_inc(STAT_SYS_LOST);
				return 0;
			}
		}
	}
	stat_inc(STAT_SYS_EVENTS);
	return 0;
}

#include "locks.bpf.h"
#include "alloc.bpf.h"
