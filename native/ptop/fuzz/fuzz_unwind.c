/* libFuzzer harness for the unwinder child (unwind_child.c) and the parent's check of what it
 * sends back (unwind_wire.c). The child reads ring-buffer records that carry a target's registers
 * and stack bytes, and unwinds them over the CFI of files the target mapped; the parent reads the
 * child's records after its own drop, trusting none of them.
 *
 * Each input is a sequence of [tag][len lo][len hi][len bytes] records:
 *   tag % 4 == 0  a parent message (with a descriptor of this harness's own binary when tag & 4)
 *   tag % 4 == 1  a raw ring-buffer record
 *   tag % 4 == 2  a record "from the child", through the parent's check
 *   tag % 4 == 3  a snapshot of pid 1 (offcpu when tag & 4, else a lock wait when tag & 8, an
 *                 allocation entry when tag & 16, else cpu) whose pc lies in the harness's
 *                 executable segment (pc offset, sp, then stack bytes from the input), so that
 *                 libdwfl walks real CFI over fuzzed stack contents
 * Pid 1 starts every input with this binary mapped at its link-time addresses. At the end every
 * aggregated record the child would send must pass the parent's check. */
#include "unwind_child.h"
#include "sample_regs.h"
#include "self_segment.h"
#include "unwind_wire.h"
#include <linux/types.h>
#include "ptop.h"
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct self_segment seg;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	seg = self_exec_segment();
	return uwc_init(false, NULL);
}

static void check_record(const void *rec, size_t len, void *arg)
{
	(void)arg;
	struct unwound_hdr h;
	struct unwind_trailer failed;
	if (len > UNWIND_RESULT_MAX || unwind_check_result(rec, len, &h, &failed) == UNWIND_REC_BAD) {
		memcpy(&h, rec, sizeof(h));
		fprintf(stderr, "refused: len %zu axis %u tgid %u kstack %d npcs %u interp %u value %g\n", len, h.axis, h.tgid,
			h.kstack, h.npcs, h.interp_len, h.value);
		abort(); /* the child would send what its parent refuses */
	}
}

static void message(uint32_t type, int32_t pid, uint64_t start, uint64_t end, uint64_t off, bool with_fd)
{
	struct umsg m = { type, pid, start, end, off };
	uwc_message(&m, sizeof(m), with_fd ? open("/proc/self/exe", O_RDONLY | O_CLOEXEC) : -1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	message(MSG_GONE, 1, 0, 0, 0, false);
	message(MSG_MAP, 1, seg.start, seg.end, seg.off, true);
	while (size >= 3) {
		uint8_t tag = data[0];
		size_t len = data[1] | (size_t)data[2] << 8;
		data += 3, size -= 3;
		if (len > size)
			len = size;
		/* exactly len bytes, 8-aligned like a ring-buffer record: ASan sees any read past them */
		uint8_t *b = malloc(len ? len : 1);
		memcpy(b, data, len);
		switch (tag % 4) {
		case 0:
			uwc_message(b, len, tag & 4 ? open("/proc/self/exe", O_RDONLY | O_CLOEXEC) : -1);
			break;
		case 1:
			uwc_sample(NULL, b, len);
			break;
		case 2: {
			struct unwound_hdr h;
			struct unwind_trailer failed;
			int kind = unwind_check_result(b, len, &h, &failed);
			if (kind == UNWIND_REC_STACK &&
			    (len != sizeof(h) + h.npcs * 8ull + h.interp_len || h.npcs > PTOP_MAX_UNWIND_DEPTH))
				abort();
			if (kind == UNWIND_REC_NAME) { /* a Java method's name: within the record, printable */
				struct unwind_name nm;
				const char *text;
				unwind_name_decode(b, &nm, &text);
				if (nm.len == 0 || nm.len > UNWIND_NAME_MAX || len != sizeof(h) + sizeof(nm) + nm.len)
					abort();
				for (uint32_t i = 0; i < nm.len; i++)
					if ((uint8_t)text[i] < 0x20 || text[i] == 0x7f)
						abort();
			}
			break;
		}
		case 3: {
			if (len < 16)
				break;
			uint64_t pcoff, sp;
			memcpy(&pcoff, b, 8);
			memcpy(&sp, b + 8, 8);
			size_t stack_len = len - 16;
			struct sample_hdr *h = calloc(1, sizeof(*h) + stack_len);
			/* the records the probes send (ptop.h SAMPLE_F_*): offcpu's block, a lock wait, an allocation, a cpu tick */
			h->kind = tag & 4 ? P_OFFCPU : tag & 8 ? P_LOCKS : tag & 16 ? P_ALLOC : P_CPU;
			uint32_t how = tag & 4 ? SAMPLE_F_AWAITS_WAKE : tag & 8 ? SAMPLE_F_SEQ_IN_KEY : tag & 16 ? SAMPLE_F_AT_ENTRY : 0;
			h->seq = pcoff; /* a lock wait's futex address */
			h->value = sp;  /* and its ns (an allocation's bytes), any u64 */
			h->tgid = 1;
			h->tid = 1 + (tag >> 3);
			h->kstack = -1;
			h->gen = (tag >> 5) & 1; /* an image with no table yet: held */
			h->flags = how | (tag & 64 ? SAMPLE_F_IN_EXECVE : 0);
			h->stack_len = (uint32_t)stack_len;
			uint64_t pc = seg.start + pcoff % (seg.end - seg.start);
			sample_set_regs(h, pc, sp);
			memcpy((uint8_t *)(h + 1), b + 16, stack_len);
			uwc_sample(NULL, h, sizeof(*h) + stack_len);
			struct sample_hdr w = { .kind = P_OFFCPU, .flags = SAMPLE_F_WAKE, .tgid = 1, .tid = h->tid, .value = pcoff };
			uwc_sample(NULL, &w, sizeof(w));
			free(h);
			break;
		}
		}
		free(b);
		data += len, size -= len;
	}
	uwc_results(check_record, NULL);
	uwc_reset();
	return 0;
}
