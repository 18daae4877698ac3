// SPDX-License-Identifier: GPL-2.0
/* Walking V8's JavaScript frames of the current thread from BPF, with no help from the target.
 *
 * V8's generated code (interpreter entry, baseline, optimised code, builtins) keeps frame pointers:
 * from the sample's frame pointer, each frame holds the caller's fp at [fp] and the return address
 * at [fp + 8]. A JavaScript frame has its context (a heap object) at fp + off_fp_context and its
 * JSFunction at fp + off_fp_function; other frames (entry, exit, stub) have a frame-type marker, a
 * SMI, in the context slot. For each JS frame the walker records the function's SharedFunctionInfo
 * (checked by its map's instance type, from the target's own metadata), the pc running in the
 * frame (for user space to find the frame among the native unwinder's), and two fields of the
 * SharedFunctionInfo as read now: user space names the function after the window and refuses a
 * name when they no longer hold. The chain must go up the stack (each fp above the last, at most
 * 1 MiB apart); a frame pointer that is not one (a native leaf that uses rbp as a plain register)
 * ends the walk. Every read is bpf_probe_read_user: a bad pointer ends the walk, it cannot fault. */
#include "snapshot.bpf.h"
#include "v8.h"

_Static_assert(sizeof(struct v8_stack) <= sizeof(struct py_stack), "the V8 section shares the CPython scratch");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, V8_MAX_PROCS);
	__type(key, __u32); /* tgid */
	__type(value, struct v8_proc);
} v8_procs SEC(".maps");

#define V8_TAG_MASK 3ull
#define V8_HEAP_TAG 1ull

/* The tagged pointer at addr when it is a heap object's, else 0. */
static __always_inline __u64 v8_read_tagged(__u64 addr)
{
	__u64 v = 0;
	if (bpf_probe_read_user(&v, sizeof(v), (const void *)addr) || (v & V8_TAG_MASK) != V8_HEAP_TAG)
		return 0;
	return v;
}

/* The instance type of the heap object `tagged` points at (0: unreadable). */
static __always_inline __u16 v8_type(const struct v8_proc *vp, __u64 tagged)
{
	__u16 t = 0;
	__u64 map = tagged ? v8_read_tagged(tagged - V8_HEAP_TAG + vp->map) : 0;
	if (!map || bpf_probe_read_user(&t, sizeof(t), (const void *)(map - V8_HEAP_TAG + vp->map_type)))
		return 0;
	return t;
}

/* The function's Code, when pc runs in it: its inlining positions then say which functions were
 * inlined at pc (user space). */
static __always_inline void v8_code(const struct v8_proc *vp, __u64 fn, __u64 pc, struct v8_frame *f)
{
	__u64 istart = 0;
	__u32 isize = 0;
	__u64 code = v8_read_tagged(fn - V8_HEAP_TAG + vp->fn_code);
	f->code = 0;
	f->istart = 0;
	if (!vp->fn_code || !code || v8_type(vp, code) != vp->type_code ||
	    bpf_probe_read_user(&istart, 8, (const void *)(code - V8_HEAP_TAG + vp->code_istart)) ||
	    bpf_probe_read_user(&isize, 4, (const void *)(code - V8_HEAP_TAG + vp->code_isize)))
		return;
	if (pc < istart || pc - istart >= isize)
		return;
	f->code = code;
	f->istart = istart;
}

/* Whether the frame at fp is interpreted: its bytecode slot holds a BytecodeArray. Then the
 * sample's pc, in a bytecode handler or the interpreter's entry, runs this function. */
static __always_inline bool v8_interpreted(const struct v8_proc *vp, __u64 fp)
{
	__u64 bc = v8_read_tagged(fp + vp->fp_bytecode);
	return bc && v8_type(vp, bc) == vp->type_bytecode;
}

struct v8_walk_ctx {
	__u64 fp, pc;
	__u32 tgid;
};

/* One link of the frame-pointer chain. As in python.bpf.c, the count of recorded frames lives in the
 * scratch map, not in this context: a counter on the BPF stack makes every iteration a new state for
 * the verifier. */
static long v8_walk_step(__u64 i, void *arg)
{
	struct v8_walk_ctx *c = arg;
	__u32 zero = 0;
	struct v8_stack *st = bpf_map_lookup_elem(&py_scratch, &zero);
	struct v8_proc *vp = bpf_map_lookup_elem(&v8_procs, &c->tgid);
	if (!st || !vp || !c->fp || (c->fp & 7))
		return 1;
	__u32 n = st->hdr.nframes;
	if (n >= V8_SECTION_FRAMES)
		return 1;
	__u64 fp = c->fp, link[2] = { 0, 0 }, slot = 0;
	if (bpf_probe_read_user(link, sizeof(link), (const void *)fp))
		return 1;
	/* a JS frame: a context (heap object) where other frames keep their type marker (a SMI) */
	if (!bpf_probe_read_user(&slot, sizeof(slot), (const void *)(fp + vp->fp_context)) &&
	    (slot & V8_TAG_MASK) == V8_HEAP_TAG) {
		__u64 fn = v8_read_tagged(fp + vp->fp_function);
		__u16 ft = v8_type(vp, fn);
		__u64 sfi = ft >= vp->type_fn_first && ft < vp->type_fn_end ? v8_read_tagged(fn - V8_HEAP_TAG + vp->fn_shared) : 0;
		if (sfi && v8_type(vp, sfi) == vp->type_sfi) {
			struct v8_frame *f = &st->frames[n]; /* n < V8_SECTION_FRAMES, checked above */
			f->sfi = sfi;
			f->pc = c->pc;
			f->name = 0;
			f->script = 0;
			bpf_probe_read_user(&f->name, 8, (const void *)(sfi - V8_HEAP_TAG + vp->sfi_name));
			bpf_probe_read_user(&f->script, 8, (const void *)(sfi - V8_HEAP_TAG + vp->sfi_script));
			v8_code(vp, fn, c->pc, f);
			if (i == 0 && !f->code && !v8_interpreted(vp, fp))
				f->pc = 0;
			st->hdr.nframes = n + 1;
		}
	}
	/* up the stack, by at most 1 MiB a frame */
	if (link[0] <= fp || link[0] - fp > (1u << 20))
		return 1;
	c->fp = link[0];
	c->pc = link[1];
	return 0;
}

struct v8_scan_ctx {
	__u64 sp, found;
	__u32 len, tgid;
};

/* One word of the copied stack (at sp + 8 * i): a saved frame pointer of a JS frame — a pointer
 * further up the copied stack, to a frame whose context and function slots hold heap objects and
 * whose own saved fp goes further up — whose function the heap confirms. The first one found is the
 * innermost (a callee-saved rbp pushed by native code, or the frame-pointer chain itself). */
static long v8_scan_step(__u64 i, void *arg)
{
	struct v8_scan_ctx *c = arg;
	__u32 zero = 0;
	struct snapshot *snap = bpf_map_lookup_elem(&scratch, &zero);
	struct v8_proc *vp = bpf_map_lookup_elem(&v8_procs, &c->tgid);
	__u32 off = (__u32)i * 8;
	if (!snap || !vp || off + 8 > c->len)
		return 1;
	const __u8 *stack = snap->buf + sizeof(struct sample_hdr);
	__u64 v = *(const __u64 *)(stack + (off & (PTOP_STACK_MAX - 8)));
	if (v <= c->sp + off || v >= c->sp + c->len || (v & 7))
		return 0;
	__u32 fo = (__u32)(v - c->sp);
	__s32 fn_at = (__s32)fo + vp->fp_function, ctx_at = (__s32)fo + vp->fp_context;
	if (fn_at < 0 || ctx_at < 0 || fo + 8 > c->len)
		return 0;
	__u64 fn = *(const __u64 *)(stack + ((__u32)fn_at & (PTOP_STACK_MAX - 8)));
	__u64 ctx = *(const __u64 *)(stack + ((__u32)ctx_at & (PTOP_STACK_MAX - 8)));
	__u64 saved = *(const __u64 *)(stack + (fo & (PTOP_STACK_MAX - 8)));
	if ((fn & V8_TAG_MASK) != V8_HEAP_TAG || (ctx & V8_TAG_MASK) != V8_HEAP_TAG || saved <= v || saved - v > (1u << 20))
		return 0;
	__u16 ft = v8_type(vp, fn);
	if (ft < vp->type_fn_first || ft >= vp->type_fn_end)
		return 0;
	c->found = v;
	return 1;
}

/* The walk as a global function, verified once on its own (README "Start-up time"). Writes the
 * section into the per-CPU interpreter scratch (py_scratch, shared with the CPython walker: a
 * process is one or the other) and returns its length, 0 when the process is not a known V8 or no
 * JS frame was found. */
__noinline int v8_walk(__u32 tgid)
{
	if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_loop))
		return 0;
	if (!bpf_map_lookup_elem(&v8_procs, &tgid))
		return 0;
	__u32 zero = 0;
	struct v8_stack *st = bpf_map_lookup_elem(&py_scratch, &zero);
	struct snapshot *snap = bpf_map_lookup_elem(&scratch, &zero);
	if (!st || !snap)
		return 0;
	const struct sample_hdr *h = (const struct sample_hdr *)snap->buf;
	st->hdr.kind = INTERP_V8;
	st->hdr.nframes = 0;
	st->hdr.len = sizeof(st->hdr);
	struct v8_walk_ctx c = { .fp = h->regs[PTOP_REG_FP], .pc = h->regs[PTOP_REG_PC], .tgid = tgid };
	bpf_loop(V8_MAX_LINKS, v8_walk_step, &c, 0);
	if (st->hdr.nframes == 0) {
		/* The sample's fp led to no JS frame: a native leaf (node's C++, libc) keeps none. The
		 * innermost JS frame is then found in the copied stack, and walked from there, its own
		 * pc unknown (the callee's return address into it lies below, unread). */
		struct v8_scan_ctx sc = { .sp = h->regs[PTOP_REG_SP], .len = h->stack_len, .tgid = tgid };
		if (sc.len <= PTOP_STACK_MAX && sc.len >= 32)
			bpf_loop(PTOP_STACK_MAX / 8, v8_scan_step, &sc, 0);
		if (sc.found) {
			struct v8_walk_ctx from = { .fp = sc.found, .pc = 0, .tgid = tgid };
			bpf_loop(V8_MAX_LINKS, v8_walk_step, &from, 0);
		}
	}
	__u32 n = st->hdr.nframes;
	if (n == 0 || n > V8_SECTION_FRAMES)
		return 0;
	st->hdr.len = sizeof(st->hdr) + n * sizeof(struct v8_frame);
	return (int)st->hdr.len;
}
