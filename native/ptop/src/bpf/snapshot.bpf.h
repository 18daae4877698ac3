/* The stack snapshot every unwinding probe (cpu, offcpu, locks, alloc) sends: the task's user
 * registers, the top of its user stack and its interpreter frames, as one ring-buffer record
 * (README "Sample record and unwinding design"). */
#ifndef PTOP_SNAPSHOT_BPF_H
#define PTOP_SNAPSHOT_BPF_H
#include "shared.bpf.h"
#include "interp.bpf.h"

#define SNAP_BYTES (sizeof(struct sample_hdr) + PTOP_INTERP_MAX + PTOP_STACK_MAX)

struct snapshot {
	__u8 buf[SNAP_BYTES + 4096]; /* slack: lets the verifier bound a page copy at a masked offset */
};

/* Where a record is built before it is copied to the ring buffer (defined in shared.bpf.c). */
struct ptop_scratch_map {
	PTOP_PER_CPU_SLOT(struct snapshot);
};
extern struct ptop_scratch_map scratch SEC(".maps");

/* Copies the current task's user registers and the top of its user stack into one ring-buffer
 * record. The stack is read page by page from sp: a read that crosses into an unmapped page
 * fails as a whole, so the copy stops at the last readable page instead. 0: sent; -EAGAIN: the ring
 * buffer had no room (bpf_ringbuf_output), counted apart because it is biased against deep stacks;
 * -1: no user registers, or nothing to send. probe: the sender's number (probe_table.h), flags: how
 * the unwinder adds the record up (ptop.h SAMPLE_F_*). */
static __always_inline int emit_snapshot(__u32 probe, __u32 flags, __u32 tgid, __u32 tid, __s32 kstack, __u64 seq, __u64 value)
{
	__u32 zero = 0;
	struct snapshot *snap = bpf_map_lookup_elem(&scratch, &zero);
	if (!snap)
		return -1;
	struct sample_hdr *h = (struct sample_hdr *)snap->buf;
	h->kind = probe;
	h->tgid = tgid;
	h->tid = tid;
	h->kstack = kstack;
	h->seq = seq;
	h->value = value;
	h->time_ns = bpf_ktime_get_ns();
	h->stack_len = 0;
	h->interp_len = 0;
	h->flags = flags;
	ptop_gen_t *gen = bpf_map_lookup_elem(&targets, &tgid);
	h->gen = gen ? *gen : 0;
	struct task_struct *task = bpf_get_current_task_btf();
	/* Inside execve the registers are still the old image's while the mm may already be the new
	 * one's: a stack read there would be unwound against the wrong image. The sample keeps its
	 * kernel stack and is marked instead (the report names it [in execve]). */
	if (bpf_core_field_exists(task->in_execve) && BPF_CORE_READ_BITFIELD_PROBED(task, in_execve)) {
		h->flags = flags | SAMPLE_F_IN_EXECVE;
		return bpf_ringbuf_output(&samples, snap->buf, sizeof(struct sample_hdr), ringbuf_wakeup());
	}
	void *regs = (void *)bpf_task_pt_regs(task);
	/* The head of the arch's pt_regs is its user register file, in a layout fixed by the ABI
	 * (ptop.h PTOP_REG_*). */
	if (!regs || bpf_probe_read_kernel(h->regs, PTOP_REGS_USER * 8, regs) != 0) {
		stat_inc(STAT_SNAPSHOT_FAILED);
		return -1;
	}
	__u64 sp = h->regs[PTOP_REG_SP];
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
	/* The interpreter-frames section follows the stack (interp.bpf.h; 0 bytes for other processes). */
	__u32 ilen = 0;
	if (len <= PTOP_STACK_MAX)
		ilen = interp_collect(tgid, stack + len, PTOP_INTERP_MAX, probe != P_OFFCPU);
	if (ilen > PTOP_INTERP_MAX)
		ilen = 0;
	h->interp_len = ilen;
	__u64 size = sizeof(struct sample_hdr) + (__u64)len + ilen;
	if (size > SNAP_BYTES)
		return -1;
	return bpf_ringbuf_output(&samples, snap->buf, size, ringbuf_wakeup());
}
#endif
