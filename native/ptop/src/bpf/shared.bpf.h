/* What every BPF program of ptop shares, declared once: the maps and window globals that
 * shared.bpf.c defines (each unit declares them extern; bpftool's static linker joins the units into
 * the one object the skeleton embeds), and the small checks every probe makes. Each shared map is a
 * named type, so that its definition and every extern declaration are the same type, as C and the
 * linker require. */
#ifndef PTOP_SHARED_BPF_H
#define PTOP_SHARED_BPF_H
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "ptop.h"

/* errno values are macros, so vmlinux.h does not carry them. */
#ifndef EFAULT
#define EFAULT 14
#endif
#ifndef EAGAIN
#define EAGAIN 11
#endif

/* Window bounds in CLOCK_MONOTONIC ns (bpf_ktime_get_ns); 0 = not started yet. User space sets
 * start_ns when the warmup ends and stopped before it reads the maps, so events outside the window
 * cost one map lookup and nothing else. */
extern volatile __u64 start_ns;
extern volatile __u32 stopped;
/* One flag per probe, at its number (ptop.h): set once by a machine-wide program, read by user space at the end. */
extern volatile __u8 ran[P__COUNT];

/* The target processes (tgid), filled by user space (value 0), each with its exec generation
 * (exec.bpf.c adds 1 at each execve). */
struct ptop_targets_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PTOP_MAX_TARGETS);
	__type(key, __u32);
	__type(value, ptop_gen_t);
};
extern struct ptop_targets_map targets SEC(".maps");

/* Kernel stacks by id (bpf_get_stackid). */
struct ptop_stacks_map {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, PTOP_MAX_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PTOP_MAX_STACK_DEPTH * sizeof(__u64));
};
extern struct ptop_stacks_map stacks SEC(".maps");

/* The stack snapshots and wake records, to the unwinder. */
struct ptop_samples_map {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PTOP_RINGBUF_BYTES);
};
extern struct ptop_samples_map samples SEC(".maps");

/* Counters, one slot each (ptop.h PTOP_STAT). */
struct ptop_stats_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT__COUNT);
	__type(key, __u32);
	__type(value, __u64);
};
extern struct ptop_stats_map stats SEC(".maps");

/* State kept per thread (tid) from one event to the next: a wait's start, a system call's entry.
 * LRU: a thread that dies mid-wait never reaches the event that deletes its entry; with a plain hash
 * such entries would pile up over a long window until every new start is lost. */
#define PTOP_PER_THREAD_MAP(value_type)                                                        \
	__uint(type, BPF_MAP_TYPE_LRU_HASH);                                                    \
	__uint(max_entries, 65536);                                                             \
	__type(key, __u32);                                                                     \
	__type(value, value_type)

/* One value per CPU (key 0): scratch space and per-CPU state, never shared between CPUs. */
#define PTOP_PER_CPU_SLOT(value_type)                                                          \
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);                                                \
	__uint(max_entries, 1);                                                                 \
	__type(key, __u32);                                                                     \
	__type(value, value_type)

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
static __always_inline void mark_ran(__u32 probe)
{
	if (start_ns != 0 && probe < P__COUNT && !ran[probe])
		ran[probe] = 1;
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
#endif
