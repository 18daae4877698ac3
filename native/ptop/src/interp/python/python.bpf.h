/* Walking the CPython frame chain of the current thread from BPF, with no help from the target.
 *
 * The thread state: _PyRuntime.interpreters.head -> PyInterpreterState.tstate_head/threads.head
 * -> PyThreadState.next …, looking for the state whose native_thread_id is this thread's tid
 * (3.11+), or, before 3.11, whose thread_id (pthread_self()) is this thread's FS base (x86_64:
 * glibc and musl keep the thread descriptor at the FS base). This works the same on every
 * version from 3.8 to 3.13 and for every thread, GIL holder or not; the TLS variable
 * _Py_tss_tstate (3.12+) and _PyRuntime.gilstate.tstate_current (<= 3.11, GIL holder only)
 * would each cover part of that. Only the main interpreter is searched.
 *
 * The frames: PyThreadState.frame (PyFrameObject, <= 3.10), ->cframe->current_frame (3.11,
 * 3.12) or ->current_frame (3.13), then f_back/previous. Frames owned by the C stack (3.12+ shim
 * frames) are skipped; they, or is_entry (3.11), mark where one C-level call of the evaluation
 * loop began, so user space can put each run of Python frames where its
 * _PyEval_EvalFrameDefault frame stands (interp.c). Every read is bpf_probe_read_user: a bad pointer ends
 * the walk, it cannot fault. */
#ifndef PTOP_PYTHON_BPF_H
#define PTOP_PYTHON_BPF_H
#include "python.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PY_MAX_PROCS);
	__type(key, __u32); /* tgid */
	__type(value, struct py_proc);
} py_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_stack);
} py_scratch SEC(".maps");

static __always_inline __u64 py_read_ptr(__u64 base, __s32 off)
{
	__u64 v = 0;
	if (!base || off < 0 || bpf_probe_read_user(&v, sizeof(v), (const void *)(base + off)))
		return 0;
	return v;
}

static __always_inline __u64 py_thread_key(void)
{
#if defined(__TARGET_ARCH_x86)
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	return BPF_CORE_READ(t, thread.fsbase);
#else
	return 0; /* no pthread_self() equivalent: only native_thread_id (3.11+) is matched */
#endif
}

struct py_find_ctx {
	__u64 ts, want, found;
	__s32 key_off, next_off;
};

static long py_find_step(__u64 i, void *arg)
{
	struct py_find_ctx *c = arg;
	if (!c->ts)
		return 1;
	if (py_read_ptr(c->ts, c->key_off) == c->want) {
		c->found = c->ts;
		return 1;
	}
	c->ts = py_read_ptr(c->ts, c->next_off);
	return 0;
}

/* The current thread's PyThreadState, or 0. */
static __always_inline __u64 py_find_tstate(const struct py_proc *pp)
{
	const struct py_walk_offsets *o = &pp->off;
	__u64 interp = py_read_ptr(pp->runtime, o->runtime_interpreters_head);
	struct py_find_ctx c = { .ts = py_read_ptr(interp, o->interp_tstate_head), .next_off = o->tstate_next };
	if (o->tstate_native_thread_id >= 0) {
		c.want = (__u32)bpf_get_current_pid_tgid();
		c.key_off = o->tstate_native_thread_id;
	} else {
		c.want = py_thread_key();
		c.key_off = o->tstate_thread_id;
	}
	if (!c.want || !c.ts)
		return 0;
	bpf_loop(PY_MAX_THREADS, py_find_step, &c, 0);
	return c.found;
}

struct py_walk_ctx {
	__u64 f;
	__u32 tgid;
};

/* One link of the frame chain. The count of recorded frames lives in the scratch map
 * (st->hdr.nframes), not in this context on the BPF stack: the verifier tracks stack values
 * exactly, so a counter here made every iteration a new state to verify (~290,000 instructions
 * and 5-25 s of verification per program on a 6.18 kernel, which verifies bpf_loop callbacks
 * until their states converge); a value read back from a map is one unknown scalar. */
static long py_walk_step(__u64 i, void *arg)
{
	struct py_walk_ctx *c = arg;
	__u32 zero = 0;
	struct py_stack *st = bpf_map_lookup_elem(&py_scratch, &zero);
	struct py_proc *pp = bpf_map_lookup_elem(&py_procs, &c->tgid);
	if (!st || !pp || !c->f)
		return 1;
	const struct py_walk_offsets *o = &pp->off;
	__u32 n = st->hdr.nframes;
	if (n >= PY_SECTION_FRAMES)
		return 1;
	__u64 f = c->f;
	__u8 owner = 0, is_entry = 0;
	if (o->frame_owner >= 0)
		bpf_probe_read_user(&owner, 1, (const void *)(f + o->frame_owner));
	if (o->owner_cstack >= 0 && owner == (__u8)o->owner_cstack) {
		/* 3.12+: a C-level call of the evaluation loop starts at the frame above */
		if (n > 0)
			st->frames[(n - 1) & (PY_MAX_FRAMES - 1)].flags |= PY_FRAME_ENTRY;
		c->f = py_read_ptr(f, o->frame_back);
		return 0;
	}
	__u64 code = py_read_ptr(f, o->frame_code);
	if (!code)
		return 1;
	struct py_frame *pf = &st->frames[n & (PY_MAX_FRAMES - 1)];
	pf->code = code;
	pf->firstlineno = 0;
	bpf_probe_read_user(&pf->firstlineno, 4, (const void *)(code + o->code_firstlineno));
	pf->flags = 0;
	if (o->frame_is_entry >= 0) { /* 3.11 */
		bpf_probe_read_user(&is_entry, 1, (const void *)(f + o->frame_is_entry));
		if (is_entry)
			pf->flags = PY_FRAME_ENTRY;
	} else if (o->frame_owner < 0) { /* <= 3.10: one evaluation-loop call per frame */
		pf->flags = PY_FRAME_ENTRY;
	}
	st->hdr.nframes = n + 1;
	c->f = py_read_ptr(f, o->frame_back);
	return 0;
}

/* Fills the per-CPU scratch stack for the current thread of process `tgid`; NULL when the
 * process is not a known CPython or the thread has no Python frames. */
static __always_inline struct py_stack *py_walk(__u32 tgid)
{
	struct py_proc *pp = bpf_map_lookup_elem(&py_procs, &tgid);
	if (!pp)
		return NULL;
	__u32 zero = 0;
	struct py_stack *st = bpf_map_lookup_elem(&py_scratch, &zero);
	if (!st)
		return NULL;
	st->hdr.kind = INTERP_CPYTHON;
	st->hdr.nframes = 0;
	st->hdr.len = sizeof(st->hdr);
	const struct py_walk_offsets *o = &pp->off;
	__u64 ts = py_find_tstate(pp);
	__u64 f = py_read_ptr(ts, o->tstate_frame);
	if (o->cframe_current_frame >= 0)
		f = py_read_ptr(f, o->cframe_current_frame);
	if (!f)
		return NULL;
	struct py_walk_ctx c = { .f = f, .tgid = tgid };
	/* up to two chain links per recorded frame: shim frames are not recorded */
	bpf_loop(2 * PY_MAX_FRAMES, py_walk_step, &c, 0);
	__u32 n = st->hdr.nframes;
	if (n == 0 || n > PY_SECTION_FRAMES)
		return NULL;
	/* The outermost frame always starts a call of the evaluation loop. */
	st->frames[(n - 1) & (PY_MAX_FRAMES - 1)].flags |= PY_FRAME_ENTRY;
	st->hdr.nframes = n;
	st->hdr.len = sizeof(st->hdr) + n * sizeof(struct py_frame);
	return st;
}

/* The walk as a global function: the verifier checks it once, on its own, instead of once per
 * path of each caller (the stack copy before it ends in five different lengths, and each program
 * that takes a snapshot inlines it). Returns the section's length in the scratch map, 0 when the
 * process is not a known CPython, the thread has no Python frames, or bpf_loop is missing
 * (kernel < 5.17). */
__noinline int interp_walk(__u32 tgid)
{
	if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_loop))
		return 0;
	struct py_stack *st = py_walk(tgid);
	return st ? (int)st->hdr.len : 0;
}

/* The entry point of the per-sample record design: writes the current thread's section into
 * buf (at most max bytes) and returns the bytes written (0: none, see interp_walk). */
static __always_inline __u32 interp_collect(__u32 tgid, void *buf, __u32 max)
{
	__u32 len = (__u32)interp_walk(tgid);
	if (len == 0 || len > max || len > sizeof(struct py_stack))
		return 0;
	__u32 zero = 0;
	struct py_stack *st = bpf_map_lookup_elem(&py_scratch, &zero);
	if (!st)
		return 0;
	/* The verifier knows nothing of a global function's result, and the compiler folds the
	 * checks above into one it cannot follow: the mask bounds the size where it is used. */
	barrier_var(len);
	if (bpf_probe_read_kernel(buf, len & 0x7ff, st))
		return 0;
	return len;
}

#endif
