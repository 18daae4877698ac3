#include "probes.h"
#include "monoclock.h"
#include "alloc.h"
#include "uprobe_link.h"
#include "ptop.skel.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
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

static int online_cpus(int *cpus, int max)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int n = 0;
	if (!f) {
		long c = sysconf(_SC_NPROCESSORS_CONF);
		for (int i = 0; i < c && n < max; i++)
			cpus[n++] = i;
		return n;
	}
	char buf[1024];
	if (fgets(buf, sizeof(buf), f)) {
		for (char *save = NULL, *tok = strtok_r(buf, ",\n", &save); tok; tok = strtok_r(NULL, ",\n", &save)) {
			int a, b;
			int k = sscanf(tok, "%d-%d", &a, &b);
			if (k == 1)
				b = a;
			if (k < 1)
				continue;
			for (int i = a; i <= b && n < max; i++)
				cpus[n++] = i;
		}
	}
	fclose(f);
	return n;
}

/* Uprobes are perf events of the "uprobe" PMU (CONFIG_UPROBE_EVENTS). */
static bool uprobes_supported(char *reason, size_t len)
{
	int fd = open("/sys/bus/event_source/devices/uprobe/type", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	snprintf(reason, len, "the kernel has no uprobe PMU (/sys/bus/event_source/devices/uprobe missing: "
		 "CONFIG_UPROBE_EVENTS is off), so allocation entry points cannot be probed");
	return false;
}

static void attach_cpu(struct probes *p, int freq)
{
	int cpus[256];
	int n = online_cpus(cpus, 256), ok = 0, last_err = 0;
	for (int i = 0; i < n && p->nlinks < 500; i++) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.size = sizeof(attr),
			.config = PERF_COUNT_SW_CPU_CLOCK,
			.sample_freq = (unsigned)freq,
			.freq = 1,
		};
		int fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			last_err = errno;
			continue;
		}
		struct bpf_link *l = bpf_program__attach_perf_event(p->skel->progs.on_cpu_sample, fd);
		if (!l) {
			last_err = errno;
			close(fd);
			continue;
		}
		p->links[p->nlinks++] = l;
		ok++;
	}
	if (ok) {
		p->attached[P_CPU] = true;
	} else {
		snprintf(p->reason[P_CPU], sizeof(p->reason[0]),
			 "perf_event_open(cpu-clock) failed on every CPU: %s (needs CAP_PERFMON)", strerror(last_err));
	}
}

static void attach_tp(struct probes *p, int which, struct bpf_program *a, struct bpf_program *b)
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

static bool tracepoint_exists(const char *category, const char *name)
{
	const char *fs = tracefs_path();
	char path[256];
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", fs ? fs : "/sys/kernel/tracing", category, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* futex_waitv (Linux 5.16) is covered where its tracepoints exist; futex itself is required. */
static void locks_autoload(struct probes *p, bool want)
{
	bool waitv = want && tracepoint_exists("syscalls", "sys_enter_futex_waitv");
	bpf_program__set_autoload(p->skel->progs.on_futex_enter, want);
	bpf_program__set_autoload(p->skel->progs.on_futex_exit, want);
	bpf_program__set_autoload(p->skel->progs.on_futex_waitv_enter, waitv);
	bpf_program__set_autoload(p->skel->progs.on_futex_waitv_exit, waitv);
	p->locks_waitv = waitv;
}

static void attach_locks(struct probes *p)
{
	if (!tracepoint_exists("syscalls", "sys_enter_futex")) {
		snprintf(p->reason[P_LOCKS], sizeof(p->reason[0]),
			 "the kernel has no syscalls:sys_enter_futex tracepoint (built without CONFIG_FTRACE_SYSCALLS)");
		return;
	}
	attach_tp(p, P_LOCKS, p->skel->progs.on_futex_enter, p->skel->progs.on_futex_exit);
	if (p->attached[P_LOCKS] && p->locks_waitv) {
		int before = p->attached[P_LOCKS];
		p->attached[P_LOCKS] = false;
		attach_tp(p, P_LOCKS, p->skel->progs.on_futex_waitv_enter, p->skel->progs.on_futex_waitv_exit);
		p->locks_waitv = p->attached[P_LOCKS];
		p->attached[P_LOCKS] = before;
		p->reason[P_LOCKS][0] = 0;
	}
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

int probes_start(struct probes *p, int mask, int freq)
{
	memset(p, 0, sizeof(*p));
	libbpf_set_print(libbpf_quiet);
	for (int i = 0; i < P__COUNT; i++)
		p->requested[i] = mask & (1 << i);
	bool tracefs = tracefs_path() != NULL;
	bool want_tp[P__COUNT] = { false, p->requested[P_OFFCPU] && tracefs, p->requested[P_SYSCALLS] && tracefs,
				   p->requested[P_LOCKS] && tracefs };
	for (int i = P_OFFCPU; i < P__COUNT; i++)
		if (p->requested[i] && !tracefs)
			snprintf(p->reason[i], sizeof(p->reason[0]), "%s", TRACEFS_REASON);

	p->skel = ptop_bpf__open();
	if (!p->skel) {
		for (int i = 0; i < P__COUNT; i++)
			if (p->requested[i] && !p->reason[i][0])
				snprintf(p->reason[i], sizeof(p->reason[0]), "opening the BPF object failed: %s", strerror(errno));
		return -1;
	}
	bpf_program__set_autoload(p->skel->progs.on_cpu_sample, p->requested[P_CPU]);
	bpf_program__set_autoload(p->skel->progs.on_sched_switch, want_tp[P_OFFCPU]);
	bpf_program__set_autoload(p->skel->progs.on_sys_enter, want_tp[P_SYSCALLS]);
	bpf_program__set_autoload(p->skel->progs.on_sys_exit, want_tp[P_SYSCALLS]);
	locks_autoload(p, want_tp[P_LOCKS]);
	bool want_alloc = p->requested[P_ALLOC] && uprobes_supported(p->reason[P_ALLOC], sizeof(p->reason[0]));
	bpf_program__set_autoload(p->skel->progs.on_alloc, want_alloc);
	if (want_alloc && uprobe_link_supported()) /* detached in one grace period, not one per uprobe */
		bpf_program__set_expected_attach_type(p->skel->progs.on_alloc, PTOP_BPF_TRACE_UPROBE_MULTI);
	bool unwinds = p->requested[P_CPU] || want_tp[P_OFFCPU] || want_tp[P_LOCKS] || want_alloc;
	bpf_program__set_autoload(p->skel->progs.on_exec, unwinds);
	if (ptop_bpf__load(p->skel)) {
		int e = errno;
		for (int i = 0; i < P__COUNT; i++)
			if (p->requested[i] && !p->reason[i][0])
				snprintf(p->reason[i], sizeof(p->reason[0]),
					 "loading the BPF programs failed: %s (needs CAP_BPF and CAP_PERFMON; run with "
					 "PTOP_DEBUG=1 for the verifier log)", strerror(e));
		ptop_bpf__destroy(p->skel);
		p->skel = NULL;
		return -1;
	}
	if (p->requested[P_CPU])
		attach_cpu(p, freq);
	if (want_tp[P_OFFCPU])
		attach_tp(p, P_OFFCPU, p->skel->progs.on_sched_switch, NULL);
	if (want_tp[P_SYSCALLS])
		attach_tp(p, P_SYSCALLS, p->skel->progs.on_sys_enter, p->skel->progs.on_sys_exit);
	if (want_tp[P_LOCKS])
		attach_locks(p);
	/* alloc: loaded here, attached per target process (alloc_attach); it stays "attached" only if
	 * at least one uprobe is in place when the window starts (main.c). */
	if (want_alloc)
		p->attached[P_ALLOC] = alloc_setup(p, PTOP_ALLOC_PERIOD, p->reason[P_ALLOC], sizeof(p->reason[0])) == 0;
	if (unwinds)
		attach_exec(p);
	for (int i = 0; i < P__COUNT; i++)
		if (p->attached[i])
			return 0;
	return -1;
}

int probes_add_target(struct probes *p, uint32_t tgid)
{
	__u8 one = 1;
	return bpf_map__update_elem(p->skel->maps.targets, &tgid, sizeof(tgid), &one, sizeof(one), BPF_ANY);
}

void probes_remove_target(struct probes *p, uint32_t tgid)
{
	bpf_map__delete_elem(p->skel->maps.targets, &tgid, sizeof(tgid), 0);
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
	alloc_detach();
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
	alloc_detach();
	for (int i = 0; i < p->nlinks; i++)
		bpf_link__destroy(p->links[i]);
	p->nlinks = 0;
	if (p->skel)
		ptop_bpf__destroy(p->skel);
	p->skel = NULL;
}
