/* The unwinder child (unwind_child.c) when memory runs out: every malloc/realloc/calloc it makes is
 * routed here (-Wl,--wrap) and made to fail on a schedule — one call, or every call from one on —
 * over a run that grows each of its tables (processes, mappings, files, aggregate entries, hash
 * slots, keys, samples held after an exec). Under ASan + UBSan, for every schedule: no crash, no bad access, every record it
 * would send passes the parent's check, each sample is either in the aggregate or counted as
 * dropped (uwc_dropped), and the trailer the parent receives carries those counts per axis (the
 * summary's `lost`). Exit 0 and "ok" when all hold. */
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

void *__real_malloc(size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_calloc(size_t n, size_t size);

static long calls, fail_from = -1, fail_to = -1; /* calls numbered from 0; [fail_from, fail_to] fail */

static bool fail_now(void)
{
	long c = calls++;
	return fail_from >= 0 && c >= fail_from && (fail_to < 0 || c <= fail_to);
}

void *__wrap_malloc(size_t n)
{
	return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __real_realloc(p, n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __real_calloc(n, size);
}

static struct self_segment seg;

static double events, axis_events[P__COUNT];
static long records, trailers;
static struct unwind_trailer received; /* as the parent decodes it */

static void check_record(const void *rec, size_t len, void *arg)
{
	(void)arg;
	struct unwound_hdr h;
	struct unwind_trailer t;
	int kind = len <= UNWIND_RESULT_MAX ? unwind_check_result(rec, len, &h, &t) : UNWIND_REC_BAD;
	if (kind == UNWIND_REC_BAD || (trailers && kind != UNWIND_REC_BAD)) {
		fprintf(stderr, "a record the parent refuses (len %zu, after the trailer: %ld)\n", len, trailers);
		abort();
	}
	if (kind == UNWIND_REC_STACK) {
		events += h.events;
		axis_events[h.axis] += h.events;
		records++;
	}
	if (kind == UNWIND_REC_TRAILER) {
		received = t;
		trailers++;
	}
}

static void message(uint32_t type, int32_t pid, uint64_t start, uint64_t end, uint64_t off, bool with_fd)
{
	struct umsg m = { type, pid, start, end, off };
	uwc_message(&m, sizeof(m), with_fd ? open("/proc/self/exe", O_RDONLY | O_CLOEXEC) : -1);
}

#define PIDS 40
#define ANON_MAPS 40
#define SAMPLES 5000
#define WALKED 50 /* samples with stack bytes: libdwfl walks them */

/* Pid 2 exec's a third of the way through: its samples from then on are of generation 1, held (a
 * list that grows) until that image's table arrives, two thirds of the way through. */
static uint32_t gen_of_sample(int i, uint32_t tgid)
{
	return tgid == 2 && i > SAMPLES / 3 ? 1 : 0;
}

static void exec_midway(int i)
{
	if (i == 2 * SAMPLES / 3) {
		struct umsg m = { MSG_MAPS_BEGIN, 2, 0, 0, 0, 10 * (uint64_t)i + 5, 0, 1 };
		uwc_message(&m, sizeof(m), -1);
		struct umsg map = { MSG_MAP, 2, seg.start, seg.end, seg.off, 0, 0, 1 };
		uwc_message(&map, sizeof(map), open("/proc/self/exe", O_RDONLY | O_CLOEXEC));
		m.type = MSG_MAPS_END;
		uwc_message(&m, sizeof(m), -1);
	}
}

/* One run; returns the number of wrapped calls it made. */
static long run(long from, long to)
{
	calls = 0;
	fail_from = from;
	fail_to = to;
	events = 0;
	records = trailers = 0;
	memset(axis_events, 0, sizeof(axis_events));
	memset(&received, 0, sizeof(received));
	if (uwc_init(false, NULL)) {
		fail_from = -1;
		uwc_reset();
		return calls; /* ptop's child exits with a message here (unwind.c) */
	}
	for (int pid = 1; pid <= PIDS; pid++) {
		message(MSG_GONE, pid, 0, 0, 0, false);
		message(MSG_MAP, pid, seg.start, seg.end, seg.off, true);
	}
	for (int i = 0; i < ANON_MAPS; i++) /* JIT-like regions of pid 1: its mapping table grows */
		message(MSG_MAP, 1, 0x7f0000000000ull + i * 0x10000ull, 0x7f0000000000ull + i * 0x10000ull + 0x1000, 0, false);
	static uint8_t buf[sizeof(struct sample_hdr) + 512];
	long sent = 0, axis_sent[P__COUNT] = { 0 };
	for (int i = 0; i < SAMPLES; i++) {
		struct sample_hdr *h = (struct sample_hdr *)buf;
		memset(buf, 0, sizeof(buf));
		bool alloc = i % 7 == 0; /* as alloc.bpf.c and cpu.bpf.c send them */
		h->kind = alloc ? P_ALLOC : P_CPU;
		h->flags = alloc ? SAMPLE_F_AT_ENTRY : 0;
		h->value = alloc ? 4096 : 1;
		h->tgid = 1 + (uint32_t)(i % PIDS);
		h->tid = h->tgid;
		h->kstack = i % PTOP_MAX_STACKS; /* part of the key: SAMPLES distinct stacks */
		h->stack_len = i < WALKED ? 512 : 0;
		h->time_ns = 10 * (uint64_t)i;
		h->gen = gen_of_sample(i, h->tgid);
		uint64_t pc = seg.start + (uint64_t)(i * 37) % (seg.end - seg.start), sp = 0x7ffd00000000ull;
		sample_set_regs(h, pc, sp);
		for (int b = 0; b < 512; b++)
			buf[sizeof(*h) + b] = (uint8_t)(i * 131 + b * 7);
		uwc_sample(NULL, buf, sizeof(*h) + h->stack_len);
		sent++;
		exec_midway(i);
		axis_sent[h->kind]++;
	}
	uwc_results(check_record, NULL);
	struct unwind_trailer mine;
	uint64_t full, oom, maps;
	uwc_dropped(&mine, &full, &oom, &maps);
	/* The parent learns exactly the child's counts, and per axis every sample is in a stack or in them. */
	if (trailers != 1 || memcmp(&mine, &received, sizeof(mine)) != 0) {
		fprintf(stderr, "fail [%ld, %ld]: %ld trailers, or its counts differ from the child's\n", from, to, trailers);
		abort();
	}
	for (int a = 0; a < P__COUNT; a++)
		if (axis_events[a] + (double)(received.full[a] + received.no_memory[a]) != (double)axis_sent[a]) {
			fprintf(stderr, "fail [%ld, %ld]: axis %d: %ld samples, %.0f aggregated + %llu + %llu in the trailer\n", from,
				to, a, axis_sent[a], axis_events[a], (unsigned long long)received.full[a],
				(unsigned long long)received.no_memory[a]);
			abort();
		}
	if (events + (double)(full + oom) != (double)sent) {
		fprintf(stderr, "fail [%ld, %ld]: %ld samples, %.0f aggregated + %llu + %llu dropped\n", from, to, sent, events,
			(unsigned long long)full, (unsigned long long)oom);
		abort();
	}
	if (from < 0 && (full || oom || maps || records != SAMPLES)) {
		fprintf(stderr, "without failures: %ld stacks, dropped %llu %llu %llu\n", records, (unsigned long long)full,
			(unsigned long long)oom, (unsigned long long)maps);
		abort();
	}
	long n = calls;
	fail_from = -1;
	uwc_reset();
	return n;
}

int main(void)
{
	seg = self_exec_segment();
	long total = run(-1, -1);
	long runs = 0;
	/* Each of the first calls (the tables' first blocks and growth), then a spread over the key
	 * allocations; each both alone and as the start of a lasting shortage. */
	for (long k = 0; k < total; k += k < 300 ? 1 : 97) {
		run(k, k);
		run(k, -1);
		runs += 2;
	}
	printf("ok: %ld allocations in a run, %ld runs with failures\n", total, runs);
	return 0;
}
