/* The unwinder child across a target's execve (unwind_child.c, "Tables and execve"), driven
 * record by record: which table each sample is unwound against, decided by the exec generation of
 * the sample and of each table (gen_pick.h), and within one image by the tables' read times. The harness's own executable segment
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
static double placed, truncated, in_execve; /* samples, from the records the child sends */
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
	else if (h.in_execve)
		in_execve += h.events;
	else if (h.npcs > 0)
		placed += h.events;
	else
		truncated += h.events;
}

static void message(uint32_t type, uint64_t start, uint64_t end, uint64_t read_ns, uint32_t gen, bool with_fd)
{
	struct umsg m = { type, PID, start, end, 0, read_ns, 0, gen };
	if (with_fd)
		m.off = seg.off;
	uwc_message(&m, sizeof(m), with_fd ? open("/proc/self/exe", O_RDONLY | O_CLOEXEC) : -1);
}

/* The process as first found, at time 1, generation 0: its old image only. */
static void found(void)
{
	message(MSG_GONE, 0, 0, 1, 0, false);
	message(MSG_MAP, OLD_IMAGE, OLD_IMAGE + 0x10000, 0, 0, false);
}

/* A table of generation gen read at read_ns that holds the new image (the harness's segment). */
static void table(uint64_t read_ns, uint32_t gen)
{
	message(MSG_MAPS_BEGIN, 0, 0, read_ns, gen, false);
	message(MSG_MAP, OLD_IMAGE, OLD_IMAGE + 0x10000, 0, gen, false);
	message(MSG_MAP, seg.start, seg.end, 0, gen, true);
	message(MSG_MAPS_END, 0, 0, 0, gen, false);
}

/* A table of generation gen read at read_ns: the old image only. */
static void old_table(uint64_t read_ns, uint32_t gen)
{
	message(MSG_MAPS_BEGIN, 0, 0, read_ns, gen, false);
	message(MSG_MAP, OLD_IMAGE, OLD_IMAGE + 0x10000, 0, gen, false);
	message(MSG_MAPS_END, 0, 0, 0, gen, false);
}

/* A cpu sample of generation gen taken at t with its pc in the new image (n distinct: part of the
 * key); flags: sample_hdr.flags. */
static void sample_flags(uint64_t t, uint32_t gen, int n, uint32_t flags)
{
	static uint8_t buf[sizeof(struct sample_hdr) + STACK];
	memset(buf, 0, sizeof(buf));
	struct sample_hdr *h = (struct sample_hdr *)buf;
	h->kind = P_CPU;
	h->value = 1; /* a cpu sample counts one (cpu.bpf.c) */
	h->tgid = h->tid = PID;
	h->kstack = n;
	h->time_ns = t;
	h->gen = gen;
	h->flags = flags;
	h->stack_len = flags & SAMPLE_F_IN_EXECVE ? 0 : STACK;
	sample_set_regs(h, seg.start + 16 * (uint64_t)n % (seg.end - seg.start), 0x7ffd00000000ull);
	uwc_sample(NULL, buf, sizeof(*h) + h->stack_len);
}

static void sample_at(uint64_t t, uint32_t gen, int n)
{
	sample_flags(t, gen, n, 0);
}

static int cases, failures;

static void expect(const char *name, double want_placed, double want_truncated, uint64_t want_unheld)
{
	placed = truncated = in_execve = 0;
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

	/* A sample of an image whose table has not come is held until it does. */
	found();
	sample_at(200, 1, 1);
	sample_at(210, 1, 2);
	old_table(90, 0); /* another table of the old image: not theirs */
	table(300, 1);
	expect("held until its image's table", 2, 0, 0);

	/* Two images at the same addresses never share a table: the old image's sample is unwound in
	 * the old image's table (where its pc is not), though the new image's, which has it, came first. */
	found();
	table(150, 1);
	sample_at(120, 0, 1);
	sample_at(200, 1, 2);
	expect("each image its own table, whatever arrived first", 1, 1, 0);

	/* Within one image, a table read after the sample's time is not its table, only the fallback
	 * for a pc the current one lacks (a library mapped just before the read). */
	found();
	table(500, 0);
	sample_at(200, 0, 1);
	expect("a later table of the same image is the fallback for a pc the current table lacks", 1, 0, 0);

	/* Two execs before any table: the image never read is unwound in the next one's (gen_pick.h). */
	found();
	sample_at(110, 1, 1);
	sample_at(160, 2, 2);
	table(300, 2);
	expect("two execs, one table", 2, 0, 0);

	/* No table ever comes (the process exited): the held samples end [truncated] at the end,
	 * never unwound in an earlier image. */
	found();
	sample_at(110, 1, 1);
	expect("no table before the end: [truncated]", 0, 1, 0);

	/* The held bytes are bounded: past two samples (this build's bound) a sample is not held: it
	 * ends [truncated], counted in the trailer. */
	found();
	sample_at(110, 1, 1);
	sample_at(120, 1, 2);
	sample_at(130, 1, 3);
	table(300, 1);
	expect("past the bound: not held, counted", 2, 1, 1);

	/* The pid is found again (reused): what was held is of the process before. */
	found();
	sample_at(110, 1, 1);
	found();
	table(300, 1);
	expect("a reused pid: the held samples are not given the new process's table", 0, 1, 0);

	/* A sample two generations on retires the oldest image (its files and CFI); a late sample of
	 * it is unwound in no image, not in a later one. */
	found();
	table(50, 0); /* the oldest image's own table holds the pc: only its retirement truncates */
	table(100, 1);
	table(200, 2);
	sample_at(250, 2, 1);
	sample_at(90, 0, 2);
	expect("a retired image: its late sample ends [truncated]", 1, 1, 0);

	/* Taken inside execve: not unwound, not held, marked. */
	found();
	sample_flags(110, 0, 1, SAMPLE_F_IN_EXECVE);
	expect("inside execve: marked", 0, 0, 0);
	if (in_execve != 1) {
		fprintf(stderr, "inside execve: %.0f marked samples, expected 1\n", in_execve);
		failures++;
	}

	if (failures)
		return 1;
	printf("ok: %d cases\n", cases);
	return 0;
}
