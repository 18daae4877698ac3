// SPDX-License-Identifier: GPL-2.0
/* The `locks` probe: time a target thread waits in a futex for a lock
 * another thread holds, by the waiter's user stack.
 *
 * Tracepoints: syscalls:sys_{enter,exit}_futex and sys_{enter,exit}_futex_waitv, not the
 * raw_syscalls pair the `syscalls` probe uses. Those fire on every system call of every process
 * and would have to be attached even when `syscalls` is not asked for; these fire on futex calls
 * only, carry the arguments by name, and leave the two probes independent (one can attach while
 * the other cannot).
 *
 * Timing: enter stores (time, futex address, kind) per thread; exit charges the whole wait. The
 * user stack is snapshotted at exit, not at enter: the thread's user registers and stack do not
 * change while it is inside the call, and at exit we know whether it waited at all (EAGAIN: the
 * value had already changed, nothing was waited) and whether it was contention, so only real lock
 * waits pay for a snapshot. No kernel stack: a futex wait's kernel stack is always
 * futex_wait -> schedule and says nothing the user stack does not.
 *
 * Contention or not: a futex wait is a lock wait when the operation is a lock (FUTEX_LOCK_PI,
 * FUTEX_LOCK_PI2), or a FUTEX_WAIT / FUTEX_WAIT_BITSET whose expected value is a lock word's
 * "held, with waiters" state: 2 (the three-state mutex of glibc's lowlevellock, Rust's std Mutex
 * and Go's runtime lock), 3 (glibc's rwlock phase/writer futexes: locked | futex-used), or any value
 * with bit 31 set (FUTEX_WAITERS: robust and PI mutexes, musl's mutexes). Other waits are
 * condition variables (glibc waits on g_signals with 0), semaphores (0), thread joins (the tid),
 * FUTEX_WAIT_REQUEUE_PI (a condition variable over a PI mutex) and idle workers: they are counted
 * in STAT_LOCK_OTHER_* and reported as a total, not put on the axis. futex_waitv is classified by
 * its first futex the same way. */
#include "snapshot.bpf.h"
#include "locks_stats.h"

#define PTOP_FUTEX_WAIT 0
#define PTOP_FUTEX_LOCK_PI 6
#define PTOP_FUTEX_WAIT_BITSET 9
#define PTOP_FUTEX_WAIT_REQUEUE_PI 11
#define PTOP_FUTEX_LOCK_PI2 13
#define PTOP_FUTEX_CMD_MASK (~(128 | 256)) /* without FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME */
#define PTOP_FUTEX_WAITERS 0x80000000u

/* include/uapi/linux/futex.h; spelled out so builds against an older vmlinux.h work. */
struct ptop_futex_waitv {
	__u64 val;
	__u64 uaddr;
	__u32 flags;
	__u32 reserved;
};

struct lock_start_val {
	__u64 ts;
	__u64 uaddr;
	__u64 contended;
};

struct {
	PTOP_PER_THREAD_MAP(struct lock_start_val);
} lock_start SEC(".maps");

static __always_inline __u64 lock_word_contended(__u32 expected)
{
	return expected == 2 || expected == 3 || (expected & PTOP_FUTEX_WAITERS);
}

static __always_inline void lock_enter(__u64 uaddr, __u64 contended)
{
	__u64 id = bpf_get_current_pid_tgid();
	if (!is_target(id >> 32) || !in_window())
		return;
	__u32 tid = (__u32)id;
	struct lock_start_val v = { .ts = bpf_ktime_get_ns(), .uaddr = uaddr, .contended = contended };
	if (bpf_map_update_elem(&lock_start, &tid, &v, BPF_ANY) != 0)
		stat_inc(PTOP_STAT(P_LOCKS, STAT_LOST));
}

static __always_inline void lock_exit(long ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct lock_start_val *st = bpf_map_lookup_elem(&lock_start, &tid);
	if (!st)
		return;
	struct lock_start_val v = *st;
	bpf_map_delete_elem(&lock_start, &tid);
	if (stopped || ret == -EAGAIN)
		return;
	__u64 now = bpf_ktime_get_ns();
	__u64 delta = now > v.ts ? now - v.ts : 0;
	if (!v.contended) {
		stat_inc(STAT_LOCK_OTHER_WAITS);
		stat_add(STAT_LOCK_OTHER_NS, delta);
		return;
	}
	int rc = emit_snapshot(P_LOCKS, SAMPLE_F_SEQ_IN_KEY, id >> 32, tid, -1, v.uaddr, delta);
	if (rc == 0)
		stat_inc(PTOP_STAT(P_LOCKS, STAT_SAMPLES));
	else
		stat_inc(PTOP_STAT(P_LOCKS, STAT_LOST));
	if (rc == -EAGAIN)
		stat_inc(PTOP_STAT(P_LOCKS, STAT_RINGBUF_FULL));
}

SEC("tracepoint/syscalls/sys_enter_futex")
int on_futex_enter(struct trace_event_raw_sys_enter *ctx)
{
	int cmd = (int)ctx->args[1] & PTOP_FUTEX_CMD_MASK;
	__u64 contended;
	if (cmd == PTOP_FUTEX_WAIT || cmd == PTOP_FUTEX_WAIT_BITSET)
		contended = lock_word_contended((__u32)ctx->args[2]);
	else if (cmd == PTOP_FUTEX_LOCK_PI || cmd == PTOP_FUTEX_LOCK_PI2)
		contended = 1;
	else if (cmd == PTOP_FUTEX_WAIT_REQUEUE_PI)
		contended = 0;
	else
		return 0; /* wakes, requeues, trylock: not a wait */
	lock_enter(ctx->args[0], contended);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_futex")
int on_futex_exit(struct trace_event_raw_sys_exit *ctx)
{
	lock_exit(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex_waitv")
int on_futex_waitv_enter(struct trace_event_raw_sys_enter *ctx)
{
	if (!is_target(bpf_get_current_pid_tgid() >> 32))
		return 0; /* reads no other process's memory */
	struct ptop_futex_waitv w = {};
	/* The first futex of the vector names the wait; an unreadable vector is not a lock wait. */
	__u64 contended = 0;
	if (ctx->args[1] > 0 && bpf_probe_read_user(&w, sizeof(w), (void *)ctx->args[0]) == 0)
		contended = lock_word_contended((__u32)w.val);
	lock_enter(w.uaddr, contended);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_futex_waitv")
int on_futex_waitv_exit(struct trace_event_raw_sys_exit *ctx)
{
	lock_exit(ctx->ret);
	return 0;
}
