/* Interpreter frames in the stack snapshot (README "Sample record and unwinding design"): the
 * section a walker writes after the copied stack: CPython's (python/python.bpf.c), else V8's
 * (v8/v8.bpf.c); another walker adds its call to interp_collect. */
#ifndef PTOP_INTERP_BPF_H
#define PTOP_INTERP_BPF_H
#include "shared.bpf.h"
#include "python.h"

/* The walker's section, built per CPU before it is copied into the record (defined in
 * bpf/shared.bpf.c). */
struct py_scratch_map {
	PTOP_PER_CPU_SLOT(struct py_stack);
};
extern struct py_scratch_map py_scratch SEC(".maps");

/* CPython's walk (python/python.bpf.c): the section's length in py_scratch, 0 when there is none. */
extern int interp_walk(__u32 tgid);
/* V8's walk (v8/v8.bpf.c): the same, into the same scratch (a process is one or the other). */
extern int v8_walk(__u32 tgid);

/* Writes the current thread's section into buf (at most max bytes) and returns the bytes written
 * (0: none, see interp_walk). v8: whether V8's walk may run. on_sched_switch keeps 384 bytes on its
 * stack, and the verifier adds the frames of a call chain up against 512 (in 32-byte units): with
 * v8_walk and its bpf_loop callback below it, Linux 6.1 refused to load the program (6.18 did
 * not), so its off-cpu snapshots carry no JS frames. */
static __always_inline __u32 interp_collect(__u32 tgid, void *buf, __u32 max, bool v8)
{
	__u32 len = (__u32)interp_walk(tgid);
	if (len == 0 && v8)
		len = (__u32)v8_walk(tgid);
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
