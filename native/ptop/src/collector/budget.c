/* ptop's node-level CPU budget (budget.h). */
#include "budget.h"
#include "monoclock.h"
#include <linux/types.h>
#include "ptop.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The bound: cores of ptop's CPU per busy target CPU, the least it is allowed, the most. A test
 * build (Makefile: build/ptop-smallbudget) makes the first two tiny so that a live capture goes
 * over them; the shipped ptop always has these. */
#ifndef PTOP_BUDGET_PER_BUSY_CPU
#define PTOP_BUDGET_PER_BUSY_CPU 0.02
#endif
#ifndef PTOP_BUDGET_FLOOR
#define PTOP_BUDGET_FLOOR 0.01
#endif
#define BUDGET_MAX 1.0
#define STRETCH_NS 2000000000ull  /* measured over 2 s */
#define SETTLE_NS 1000000000ull   /* from 1 s into the window: the unwinder's first rows are compiled by then */
#define MIN_HZ 10
#define MARGIN 0.8                /* below the bound, for what a stretch does not foresee */

static struct {
	struct probes *p;
	int requested;
	unsigned every; /* the cpu probe keeps one sample in every (probes_set_cpu_thinning) */
	bool on, ended;
	uint64_t open_ns, stretch_ns, last_change_ns, end_ns;
	uint64_t cpu_ns, samples; /* at the stretch's start */
	double hz_ns;             /* sum of effective Hz × ns before last_change_ns */
	/* When lowered: the first frequency and the last stretch that went over. */
	bool lowered;
	double over_use, over_allowed, over_busy;
	char note[480];
} b;

/* ptop's CPU so far: its own threads and its children's (the unwinder, the helpers). */
static uint64_t own_cpu_ns(void)
{
	uint64_t ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	FILE *f = fopen(path, "re");
	if (!f)
		return ns;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (char *s = buf, *end; *s; s = end) {
		long pid = strtol(s, &end, 10);
		if (end == s)
			break;
		clockid_t c;
		if (pid > 0 && clock_getcpuclockid((pid_t)pid, &c) == 0)
			ns += clock_ns(c);
	}
	return ns;
}

static double hz_now(void)
{
	return (double)b.requested / b.every;
}

void budget_begin(struct probes *p, int requested_hz)
{
	memset(&b, 0, sizeof(b));
	if (requested_hz <= 0)
		return;
	b.p = p;
	b.on = true;
	b.requested = requested_hz;
	b.every = 1;
	b.open_ns = b.last_change_ns = mono_ns();
}

/* From now on one sample in every is kept, each counting for every at the requested period (its
 * record's value and the cpu probe's counts say so: cpu.bpf.c). */
static void thin(unsigned every, uint64_t now)
{
	b.hz_ns += hz_now() * (double)(now - b.last_change_ns);
	b.last_change_ns = now;
	b.every = every;
	probes_set_cpu_thinning(b.p, every);
}

void budget_tick(struct probes *p)
{
	(void)p;
	if (!b.on || b.ended)
		return;
	uint64_t now = mono_ns();
	if (!b.stretch_ns) {
		if (now - b.open_ns < SETTLE_NS)
			return;
		b.stretch_ns = now;
		b.cpu_ns = own_cpu_ns();
		b.samples = probes_stat(b.p, PTOP_STAT(P_CPU, STAT_SAMPLES));
		return;
	}
	if (now - b.stretch_ns < STRETCH_NS)
		return;
	uint64_t cpu = own_cpu_ns(), samples = probes_stat(b.p, PTOP_STAT(P_CPU, STAT_SAMPLES));
	double secs = (double)(now - b.stretch_ns) / 1e9;
	double use = (double)(cpu - b.cpu_ns) / 1e9 / secs; /* cores */
	/* Target CPUs on CPU: STAT_SAMPLES counts each kept sample for the ones it stands for, so these
	 * are the samples at the requested frequency. */
	double busy = (double)(samples - b.samples) / secs / b.requested;
	double allowed = busy * PTOP_BUDGET_PER_BUSY_CPU;
	allowed = allowed < PTOP_BUDGET_FLOOR ? PTOP_BUDGET_FLOOR : allowed > BUDGET_MAX ? BUDGET_MAX : allowed;
	b.stretch_ns = now;
	b.cpu_ns = cpu;
	b.samples = samples;
	if (getenv("PTOP_DEBUG"))
		fprintf(stderr, "ptop: budget: %.2f s at %.1f Hz: %.2f%% of a core, %.2f target CPUs busy, %.2f%% allowed\n", secs,
			hz_now(), use * 100, busy, allowed * 100);
	if (use <= allowed || hz_now() <= MIN_HZ)
		return;
	double every = b.every * use / allowed / MARGIN;
	double most = (double)b.requested / MIN_HZ;
	unsigned next = (unsigned)(every < most ? every + 0.999 : most);
	if (next <= b.every)
		return;
	b.lowered = true;
	b.over_use = use, b.over_allowed = allowed, b.over_busy = busy;
	thin(next, now);
}

void budget_end(void)
{
	if (b.on && !b.ended) {
		b.ended = true;
		b.end_ns = mono_ns();
	}
}

static double effective_hz(void)
{
	uint64_t end = b.ended ? b.end_ns : mono_ns();
	double total = (double)(end - b.open_ns);
	if (total <= 0)
		return hz_now();
	return (b.hz_ns + hz_now() * (double)(end - b.last_change_ns)) / total;
}

char *budget_summary_json(void)
{
	if (!b.on)
		return NULL;
	char *s = NULL;
	int rc = b.lowered ? asprintf(&s, ",\"effective_frequency_hz\":%.1f,\"sample_weight\":{\"cpu\":%u}", effective_hz(), b.every)
			   : asprintf(&s, ",\"effective_frequency_hz\":%.1f", effective_hz());
	return rc < 0 ? NULL : s;
}

struct report;
/* The cpu probe's notes hook (probe_table.c). */
size_t cpu_budget_notes(const struct report *r, const struct probes *p, const char **notes)
{
	(void)r, (void)p;
	const char *n = budget_note();
	if (n)
		notes[0] = n;
	return n != NULL;
}

const char *budget_note(void)
{
	if (!b.on || !b.lowered)
		return NULL;
	snprintf(b.note, sizeof(b.note),
		 "cpu: sampled at %.0f Hz on average, not the requested %d Hz: ptop's own CPU (%.1f%% of a core with "
		 "%.1f target CPUs busy) went over its budget (%.2g%% of a core: %.2g%% per busy target CPU, at least "
		 "%.2g%%, at most one core), so from then on one sample in %u was kept (%.0f Hz), each counting for %u: "
		 "values stay in samples at the requested period",
		 effective_hz(), b.requested, b.over_use * 100, b.over_busy, b.over_allowed * 100,
		 PTOP_BUDGET_PER_BUSY_CPU * 100, PTOP_BUDGET_FLOOR * 100, b.every, hz_now(), b.every);
	return b.note;
}
