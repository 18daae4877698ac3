/* The unwinder child across a target's execve (unwind_child.c, "Tables and execve"), driven
 * record by record: which table each sample is unwound against, decided by the read times of the
 * tables and the exec record's place in the ring buffer. The harness's own executable segment
 * stands for the new image: a sample "placed" has its pc in a table the child holds (its leaf is
 * named); the old image's table is an anonymous range elsewhere, so a sample unwound against it
 * ends [truncated] with no frame. Built with a held-sample bound of two samples (Makefile). Exit 0
 * and "ok: N cases" when every case holds. */
#include "unwind_child.h"
#include "sample_regs.h"
#include "self_segment.h"
#include "unwind_wire.h"
#include <linux/types.h>
#include "ptop.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PID 7
#define OLD_IMAGE 0x7e0000000000ull /* the old image's range: not the harness's segment */
#define STACK 64

static struct self_segment seg;
static double placed, truncated; /* samples, from the records the child sends */
static uint64_t failed;           /* the trailer's count of samples with no frame */
static uint64_t unheld;           /* the trailer's count of cpu samples not held past the bound */

static void collect(const void *rec, size_t len, void *arg)
{
	(void)arg;
	struct unwound_hdr h;
	struct unwind_trailer t;
	int kind = unwind_check_result(rec, len, &h, &t);
	if (kind == UNWIND_REC_BAD)
		abort();
	if (kind == UNWIND_REC_TRAILER) {
		failed = t.failed;
		unheld = t.unheld[P_CPU];
	}
	else if (h.npcs > 0)
		placed += h.events;
	else
		truncated += h.events;
}

static void message(uint32_t type, uint64_t start, uint64_t end, uint64_t read_ns, bool with_fd)
{
	struct umsg m = { type, PID, start, end, 0, read_ns };
	if (with_fd)
		m.off = seg.off;
	uwc_message(&m, sizeof(m), with_fd ? open("/proc/self/exe", O_RDONLY | O_CLOEXEC) : -1);
}

/* The process as first found, at time 1: its (old) image only. */
static void found(void)
{
	message(MSG_GONE, 0, 0, 1, false);
	message(MSG_MAP, OLD_IMAGE, OLD_IMAGE + 0x10000, 0, false);
}

/* A table read at read_ns that holds the new image (and, as the parent's do, the old one). */
static void table(uint64_t read_ns)
{
	message(MSG_MAPS_BEGIN, 0, 0, read_ns, false);
	message(MSG_MAP, OLD_IMAGE, OLD_IMAGE + 0x10000, 0, false);
	message(MSG_MAP, seg.start, seg.end, 0, true);
	message(MSG_MAPS_END, 0, 0, 0, false);
}

/* A table read at read_ns from before the exec: the old image only. */
static void old_table(uint64_t read_ns)
{
	message(MSG_MAPS_BEGIN, 0, 0, read_ns, false);
	message(MSG_MAP, OLD_IMAGE, OLD_IMAGE + 0x10000, 0, false);
	message(MSG_MAPS_END, 0, 0, 0, false);
}

static void exec_at(uint64_t t)
{
	struct sample_hdr e = { .kind = SAMPLE_EXEC, .tgid = PID, .tid = PID, .kstack = -1, .time_ns = t };
	uwc_sample(NULL, &e, sizeof(e));
}

/* A cpu sample taken at t with its pc in the new image (n distinct: part of the key). */
static void sample_at(uint64_t t, int n)
{
	static uint8_t buf[sizeof(struct sample_hdr) + STACK];
	memset(buf, 0, sizeof(buf));
	struct sample_hdr *h = (struct sample_hdr *)buf;
	h->kind = SAMPLE_CPU;
	h->tgid = h->tid = PID;
	h->kstack = n;
	h->time_ns = t;
	h->stack_len = STACK;
	sample_set_regs(h, seg.start + 16 * (uint64_t)n % (seg.end - seg.start), 0x7ffd00000000ull);
	uwc_sample(NULL, buf, sizeof(buf));
}

static int cases, failures;

static void expect(const char *name, double want_placed, double want_truncated, uint64_t want_unheld)
{
	placed = truncated = 0;
	failed = unheld = 0;
	uwc_results(collect, NULL);
	cases++;
	if (placed != want_placed || truncated != want_truncated || failed != (uint64_t)want_truncated || unheld != want_unheld) {
		fprintf(stderr, "%s: %.0f placed, %.0f truncated (trailer: %llu, not held: %llu), expected %.0f, %.0f and %llu\n",
			name, placed, truncated, (unsigned long long)failed, (unsigned long long)unheld, want_placed,
			want_truncated, (unsigned long long)want_unheld);
		failures++;
	}
	uwc_reset();
}

int main(void)
{
	seg = self_exec_segment();
	if (uwc_init(false, NULL))
		return 1;

	/* Control: without an exec record, a sample of the new image before its table ends there. */
	found();
	sample_at(200, 1);
	table(300);
	expect("no exec record: unwound on arrival against the old table", 0, 1, 0);

	/* The exec record holds the samples after it until a table read after the exec. */
	found();
	exec_at(100);
	sample_at(200, 1);
	sample_at(210, 2);
	old_table(90); /* a table from before the exec (a library the old image loaded): not theirs */
	table(300);
	expect("held until a table read after the exec", 2, 0, 0);

	/* The table overtook the exec record (read at 150, after the exec at 100, arrived first). */
	found();
	table(150);
	exec_at(100);
	sample_at(120, 1);
	sample_at(200, 2);
	expect("a table read after the exec, arrived before its record", 2, 0, 0);

	/* A table read after the samples' time is not used for the old image's samples before it
	 * (they are placed against the old table, or, here, the new one is their fallback). */
	found();
	table(500);
	sample_at(200, 1);
	expect("a later table is the fallback for a pc the current table lacks", 1, 0, 0);

	/* Two execs before any table: one read after both serves both images (it keeps the first's). */
	found();
	exec_at(100);
	sample_at(110, 1);
	exec_at(150);
	sample_at(160, 2);
	table(300);
	expect("two execs, one table", 2, 0, 0);

	/* No table ever comes (the process exited): the held samples are unwound at the end, counted. */
	found();
	exec_at(100);
	sample_at(110, 1);
	expect("no table before the end: unwound then, [truncated]", 0, 1, 0);

	/* The held bytes are bounded: past two samples (this build's bound) a sample is unwound at
	 * once against the table it has. */
	found();
	exec_at(100);
	sample_at(110, 1);
	sample_at(120, 2);
	sample_at(130, 3);
	table(300);
	expect("past the bound: unwound at once", 2, 1, 1);

	/* The pid is found again (reused): what was held is of the process before. */
	found();
	exec_at(100);
	sample_at(110, 1);
	found();
	table(300);
	expect("a reused pid: the held samples are not given the new process's table", 0, 1, 0);

	if (failures)
		return 1;
	printf("ok: %d cases\n", cases);
	return 0;
}
