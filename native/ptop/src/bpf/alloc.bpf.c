// SPDX-License-Identifier: GPL-2.0
/* The alloc axis in the kernel: uprobes on the target's allocation entry points (libc malloc,
 * calloc, realloc, aligned_alloc, posix_memalign; Go's runtime.mallocgc), sampled by bytes.
 *
 * Every call adds its size to exact counters (STAT_ALLOC_BYTES, STAT_ALLOC_CALLS). Each CPU keeps
 * the bytes allocated since its last sample; when they reach a threshold drawn from an
 * exponential distribution (mean = the sampling period, the quantile table `alloc_intervals`
 * filled by user space, indexed by bpf_get_prandom_u32) the current stack is snapshotted and
 * credited with all those bytes. The threshold being memoryless, the allocation a sample lands on
 * is chosen in proportion to its size and the credit does not depend on it, so the stacks' shares
 * are unbiased estimates while their sum equals the bytes allocated (bar the remainder since each
 * CPU's last sample). Periodic patterns are not aliased because the intervals are random.
 *
 * Forwarding: some entry points call another one inside the same libc (musl calloc -> malloc,
 * realloc that moves -> malloc, aligned_alloc/posix_memalign with a small alignment -> malloc,
 * musl posix_memalign -> aligned_alloc). One request must count once, at the outer call: a
 * forwarding entry leaves a mark (thread, sp, size, return address, its own ip) and the next
 * event of that thread on this CPU skips itself when it is that inner call — another entry point,
 * same size, and either a tail call (same sp, same return address) or a nested one (lower sp,
 * returning into code within 64 KiB of the outer entry point). */
#include "snapshot.bpf.h"
#include "allocelf_kinds.h"
#include "alloc_stats.h"

struct alloc_cpu {
	__u64 since; /* bytes since this CPU's last sample */
	__u64 next;  /* threshold of the next sample; 0 = not drawn yet */
	__u32 mark_tid;
	__u32 pad;
	__u64 mark_sp, mark_ret, mark_ip, mark_size;
};

struct {
	PTOP_PER_CPU_SLOT(struct alloc_cpu);
} alloc_state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PTOP_ALLOC_TABLE);
	__type(key, __u32);
	__type(value, __u64);
} alloc_intervals SEC(".maps");

static __always_inline __u64 alloc_draw(void)
{
	__u32 i = bpf_get_prandom_u32() & (PTOP_ALLOC_TABLE - 1);
	__u64 *v = bpf_map_lookup_elem(&alloc_intervals, &i);
	return v && *v ? *v : 1;
}

/* The entry registers, read from the uprobe's pt_regs as the arch's user register file (the layout
 * the snapshot relies on too, ptop.h PTOP_REG_*): not through bpf_tracing.h's PT_REGS_*, which need
 * the arch's struct in vmlinux.h, and the arm64 object is built with the build host's. */
#if defined(__TARGET_ARCH_x86)
enum { R_P1 = 14, R_P2 = 13, R_P3 = 12, R_GO_SIZE = 10 }; /* di si dx ax */
#else
enum { R_P1 = 0, R_P2 = 1, R_P3 = 2, R_GO_SIZE = 0 }; /* x0 x1 x2 x0 */
#endif

struct entry_regs {
	__u64 p1, p2, p3, go_size, ip, sp, lr;
};

static __always_inline void read_entry_regs(void *ctx, struct entry_regs *r)
{
	const __u64 *reg = ctx;
	r->p1 = reg[R_P1];
	r->p2 = reg[R_P2];
	r->p3 = reg[R_P3];
	r->go_size = reg[R_GO_SIZE];
	r->ip = reg[PTOP_REG_PC];
	r->sp = reg[PTOP_REG_SP];
#if defined(__TARGET_ARCH_x86)
	r->lr = 0;
#else
	r->lr = reg[PTOP_REG_LR];
#endif
}

/* The return address of the function being entered (x86: at [sp]; arm64: the link register). */
static __always_inline __u64 entry_return_address(const struct entry_regs *r)
{
#if defined(__TARGET_ARCH_x86)
	__u64 ret = 0;
	bpf_probe_read_user(&ret, sizeof(ret), (void *)r->sp);
	return ret;
#else
	return r->lr;
#endif
}

static __always_inline int alloc_event(const struct entry_regs *r, __u64 size, int forwards)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	if (!is_target(tgid) || !in_window())
		return 0;
	__u32 zero = 0;
	struct alloc_cpu *st = bpf_map_lookup_elem(&alloc_state, &zero);
	if (!st)
		return 0;
	__u64 sp = r->sp, ip = r->ip;
	if (st->mark_tid == tid) {
		st->mark_tid = 0;
		/* ip != mark_ip: an entry point does not forward to itself, and a loop calling calloc
		 * twice from one call site has the same sp and return address as a tail call would. */
		if (size == st->mark_size && ip != st->mark_ip && sp <= st->mark_sp && st->mark_sp - sp < 4096) {
			__u64 ret = entry_return_address(r);
			__u64 d = ret > st->mark_ip ? ret - st->mark_ip : st->mark_ip - ret;
			if ((sp == st->mark_sp && ret == st->mark_ret) || (sp < st->mark_sp && d < 65536)) {
				stat_inc(STAT_ALLOC_FORWARDED);
				if (forwards) { /* a chain (musl posix_memalign -> aligned_alloc -> malloc) */
					st->mark_tid = tid;
					st->mark_sp = sp;
					st->mark_ret = ret;
					st->mark_ip = ip;
				}
				return 0;
			}
		}
	}
	if (forwards) {
		st->mark_tid = tid;
		st->mark_sp = sp;
		st->mark_ret = entry_return_address(r);
		st->mark_ip = ip;
		st->mark_size = size;
	}
	if (size == 0)
		return 0;
	stat_add(STAT_ALLOC_BYTES, size);
	stat_inc(STAT_ALLOC_CALLS);
	if (st->next == 0)
		st->next = alloc_draw();
	st->since += size;
	if (st->since < st->next)
		return 0;
	__u64 credit = st->since;
	st->since = 0;
	st->next = alloc_draw();
	stat_inc(PTOP_STAT(P_ALLOC, STAT_SAMPLES));
	int rc = emit_snapshot(P_ALLOC, SAMPLE_F_AT_ENTRY, tgid, tid, -1, 0, credit);
	if (rc != 0) {
		if (rc == -EAGAIN)
			stat_inc(PTOP_STAT(P_ALLOC, STAT_RINGBUF_FULL));
		stat_inc(PTOP_STAT(P_ALLOC, STAT_LOST));
		stat_add(STAT_ALLOC_LOST_BYTES, credit);
	}
	return 0;
}

/* One program for every entry point: the attach cookie says which (allocelf_kinds.h), so the
 * verifier checks the snapshot code once instead of once per function. */
SEC("uprobe")
int on_alloc(void *ctx)
{
	__u64 fn = bpf_get_attach_cookie(ctx);
	struct entry_regs r;
	read_entry_regs(ctx, &r);
	__u64 a1 = r.p1, a2 = r.p2, a3 = r.p3, size = 0;
	int forwards = 1;
	switch (fn) {
	case AF_MALLOC:
		size = a1;
		forwards = 0;
		break;
	case AF_CALLOC:
		/* An overflowing request fails in libc and allocates nothing. */
		if (a2) {
			__u64 limit = ~0ull / a2;
			barrier_var(limit); /* else clang folds the test into a 128-bit multiply BPF lacks */
			if (a1 > limit)
				return 0;
		}
		size = a1 * a2;
		break;
	case AF_REALLOC:
		/* realloc(NULL, n) is malloc(n) in glibc and musl, and both call malloc for it: counted
		 * there. realloc(p, n) counts the new size: the bytes asked for, not a growth delta. */
		if (a1 == 0)
			return 0;
		size = a2;
		break;
	case AF_ALIGNED_ALLOC:
		size = a2;
		break;
	case AF_POSIX_MEMALIGN:
		size = a3;
		break;
	case AF_MALLOCGC:
		/* runtime.mallocgc(size uintptr, typ *_type, needzero bool) with Go's register ABI (Go >=
		 * 1.17 on amd64, >= 1.18 on arm64): size is in the first integer register, RAX / X0. */
		size = r.go_size;
		forwards = 0;
		break;
	default:
		return 0;
	}
	return alloc_event(&r, size, forwards);
}
