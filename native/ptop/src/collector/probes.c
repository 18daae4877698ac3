#include "probes.h"
#include "monoclock.h"
#include "ptop.skel.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* libbpf prints multi-line diagnostics; ptop reports errors itself, one line each.
	 * PTOP_DEBUG=1 shows libbpf's own output for troubleshooting. */
	static int debug = -1;
	if (debug < 0)
		debug = getenv("PTOP_DEBUG") != NULL;
	return debug ? vfprintf(stderr, fmt, ap) : 0;
}

const char *tracefs_path(void)
{
	static const char *const candidates[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	for (size_t i = 0; i < 2; i++) {
		char p[128];
		snprintf(p, sizeof(p), "%s/events/sched/sched_switch/id", candidates[i]);
		/* open, not access(): access() checks the real uid without ptop's capabilities, and
		 * tracefs is root-only (0700) unless CAP_DAC_READ_SEARCH is used. */
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			return candidates[i];
		}
	}
	return NULL;
}

static const char TRACEFS_REASON[] =
	"tracefs is not mounted at /sys/kernel/tracing (nor /sys/kernel/debug/tracing): classic tracepoints "
	"need it; fix: mount -t tracefs nodev /sys/kernel/tracing (in a container, mount the host's "
	"/sys/kernel/tracing and /sys/kernel/debug)";

void probes_attach_tracepoints(struct probes *p, int which, struct bpf_program *a, struct bpf_program *b)
{
	struct bpf_program *progs[2] = { a, b };
	int start = p->nlinks;
	for (int i = 0; i < 2 && progs[i]; i++) {
		struct bpf_link *l = bpf_program__attach(progs[i]);
		if (!l) {
			int e = errno;
			snprintf(p->reason[which], sizeof(p->reason[0]), "attaching tracepoint %s failed: %s",
				 bpf_program__section_name(progs[i]), strerror(e));
			while (p->nlinks > start)
				bpf_link__destroy(p->links[--p->nlinks]);
			return;
		}
		p->links[p->nlinks++] = l;
	}
	p->attached[which] = true;
}

bool tracepoint_exists(const char *category, const char *name)
{
	const char *fs = tracefs_path();
	char path[256];
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", fs ? fs : "/sys/kernel/tracing", category, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* Not a probe of its own: without it the unwinder learns of a target's execve only from ptop's
 * next look at its maps (every 250 ms), and the samples in between end [truncated]. */
static void attach_exec(struct probes *p)
{
	struct bpf_link *l = bpf_program__attach(p->skel->progs.on_exec);
	if (l)
		p->links[p->nlinks++] = l;
	else
		fprintf(stderr, "ptop: cannot attach to sched_process_exec (%s): samples taken just after a target's "
			"execve may end [truncated]\n", strerror(errno));
}

static struct bpf_program *program(struct probes *p, int probe, int k)
{
	const char *name = PROBES[probe].programs[k];
	return name ? bpf_object__find_program_by_name(p->skel->obj, name) : NULL;
}

/* The load hook of a probe that is only its programs. */
bool probes_load_programs(struct probes *p, int probe, bool want)
{
	for (int k = 0; k < 2; k++)
		if (program(p, probe, k))
			bpf_program__set_autoload(program(p, probe, k), want);
	return want;
}

/* The attach hook of a probe that is only its programs, tracepoints attached by section name. */
void probes_attach_programs(struct probes *p, int probe, int frequency_hz)
{
	probes_attach_tracepoints(p, probe, program(p, probe, 0), program(p, probe, 1));
}

void probes_keep_link(struct probes *p, struct bpf_link *l)
{
	p->links[p->nlinks++] = l;
}

/* Before the load: each probe turns its programs on or off (it may find it cannot be attached
 * here); returns whether a probe that unwinds is to be loaded. */
static bool choose_programs(struct probes *p, bool tracefs, bool *load)
{
	bool unwinds = false;
	for (int i = 0; i < P__COUNT; i++) {
		bool want = p->requested[i] && (tracefs || !PROBES[i].needs_tracefs);
		load[i] = PROBES[i].load(p, i, want) && want;
		unwinds |= load[i] && PROBES[i].unwinds;
	}
	bpf_program__set_autoload(p->skel->progs.on_exec, unwinds);
	return unwinds;
}

static void refuse_all(struct probes *p, const char *fmt, int e)
{
	for (int i = 0; i < P__COUNT; i++)
		if (p->requested[i] && !p->reason[i][0])
			snprintf(p->reason[i], sizeof(p->reason[0]), fmt, strerror(e));
}

int probes_start(struct probes *p, int mask, int freq)
{
	memset(p, 0, sizeof(*p));
	libbpf_set_print(libbpf_quiet);
	bool tracefs = tracefs_path() != NULL;
	for (int i = 0; i < P__COUNT; i++) {
		p->requested[i] = mask & (1 << i);
		if (p->requested[i] && PROBES[i].needs_tracefs && !tracefs)
			snprintf(p->reason[i], sizeof(p->reason[0]), "%s", TRACEFS_REASON);
	}
	p->skel = ptop_bpf__open();
	if (!p->skel) {
		refuse_all(p, "opening the BPF object failed: %s", errno);
		return -1;
	}
	bool load[P__COUNT];
	bool unwinds = choose_programs(p, tracefs, load);
#ifdef PTOP_TEST_RINGBUF_BYTES
	/* A test build (Makefile: smallring, never shipped): a ring buffer a live capture fills. */
	bpf_map__set_max_entries(p->skel->maps.samples, PTOP_TEST_RINGBUF_BYTES);
#endif
	if (ptop_bpf__load(p->skel)) {
		refuse_all(p, "loading the BPF programs failed: %s (needs CAP_BPF and CAP_PERFMON; run with PTOP_DEBUG=1 "
			   "for the verifier log)", errno);
		ptop_bpf__destroy(p->skel);
		p->skel = NULL;
		return -1;
	}
	p->python = (struct interp_handle){ .procs = p->skel->maps.py_procs };
	p->v8 = (struct interp_handle){ .procs = p->skel->maps.v8_procs };
	for (int i = 0; i < P__COUNT; i++)
		if (load[i])
			PROBES[i].attach(p, i, freq);
	if (unwinds)
		attach_exec(p);
	for (int i = 0; i < P__COUNT; i++)
		if (p->attached[i])
			return 0;
	return -1;
}

bool probes_unwind(const struct probes *p)
{
	for (int i = 0; i < P__COUNT; i++)
		if (p->attached[i] && PROBES[i].unwinds)
			return true;
	return false;
}

int probes_add_target(struct probes *p, uint32_t tgid)
{
	uint32_t first = 0; /* ptop.h ptop_gen_t */
	return bpf_map__update_elem(p->skel->maps.targets, &tgid, sizeof(tgid), &first, sizeof(first), BPF_ANY);
}

uint32_t probes_target_gen(struct probes *p, uint32_t tgid)
{
	uint32_t gen = 0;
	if (p->skel && bpf_map__lookup_elem(p->skel->maps.targets, &tgid, sizeof(tgid), &gen, sizeof(gen), 0))
		gen = 0;
	return gen;
}

void probes_remove_target(struct probes *p, uint32_t tgid)
{
	bpf_map__delete_elem(p->skel->maps.targets, &tgid, sizeof(tgid), 0);
}

/* The links a probe keeps itself (alloc's, per target process). */
static void detach_own(struct probes *p)
{
	for (int i = 0; i < P__COUNT; i++)
		if (PROBES[i].detach)
			PROBES[i].detach();
}

void probes_begin_window(struct probes *p)
{
	p->skel->bss->start_ns = mono_ns();
}

void probes_end_window(struct probes *p)
{
	p->skel->bss->stopped = 1;
	/* Detach too: nothing more to measure, and the perf events stop costing the targets. */
	for (int i = 0; i < p->nlinks; i++)
		bpf_link__destroy(p->links[i]);
	p->nlinks = 0;
	detach_own(p);
}

void probes_set_cpu_thinning(struct probes *p, unsigned every)
{
	p->skel->bss->cpu_keep_one_in = every;
}

uint64_t probes_stat(struct probes *p, int slot)
{
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0 || ncpu > 4096)
		return 0;
	uint64_t *vals = calloc((size_t)ncpu, sizeof(uint64_t)), sum = 0;
	__u32 key = (__u32)slot;
	if (vals && bpf_map__lookup_elem(p->skel->maps.stats, &key, sizeof(key), vals, sizeof(uint64_t) * (size_t)ncpu, 0) == 0)
		for (int i = 0; i < ncpu; i++)
			sum += vals[i];
	free(vals);
	return sum;
}

void probes_destroy(struct probes *p)
{
	detach_own(p);
	for (int i = 0; i < p->nlinks; i++)
		bpf_link__destroy(p->links[i]);
	p->nlinks = 0;
	if (p->skel)
		ptop_bpf__destroy(p->skel);
	p->skel = NULL;
}
