/* ptop: measure one listed workload with eBPF, drop every capability, symbolize, write the
 * profile stream (src/protocol/profile-stream.ts) to stdout. Exit codes: README.md. */
#include "alloc.h"
#include "args.h"
#include "caps.h"
#include "kernel_features.h"
#include "monoclock.h"
#include "output.h"
#include "phase.h"
#include "probes.h"
#include "procscan.h"
#include "pyframes.h"
#include "elfhelper.h"
#include "report.h"
#include "symbolize.h"
#include "targets.h"
#include "unwind.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_OK = 0, EXIT_INTERNAL = 1, EXIT_USAGE = 2, EXIT_REFUSED = 3, EXIT_NOT_RUNNING = 4,
       EXIT_NO_PRIVILEGE = 5, EXIT_INTERRUPTED = 6 };

#define RESCAN_NS 250000000ull

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static double now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static struct probes probes;
static struct procscan scan;
static size_t procs_emitted;
static bool header_done;

/* The probes whose samples carry a user-stack snapshot for the unwinder. */
static bool unwinds(const struct probes *p)
{
	return p->attached[P_CPU] || p->attached[P_OFFCPU] || p->attached[P_LOCKS] || p->attached[P_ALLOC];
}

static void on_gone(int pid, void *arg)
{
	(void)arg;
	probes_remove_target(&probes, (uint32_t)pid);
}

static void register_new(size_t first)
{
	for (size_t i = first; i < scan.n; i++)
	{
		/* Open its files now (privileged, no parsing) and pass them to the unwinder; a process
		 * that exits before the end still has its mappings, so its frames keep their names. */
		uint64_t read_ns = mono_ns();
		sym_prepare_process(scan.procs[i].pid, scan.procs[i].nspid);
		unwind_send_process(scan.procs[i].pid, true, read_ns);
		if (probes.skel && probes_add_target(&probes, (uint32_t)scan.procs[i].pid))
			fprintf(stderr, "ptop: cannot add pid %d to the target map: %s\n", scan.procs[i].pid, strerror(errno));
		else {
			py_attach(&probes, scan.procs[i].pid); /* a CPython: its layout for the BPF walker */
			alloc_attach(&probes, scan.procs[i].pid); /* its libc's (or Go's) allocation entry points */
		}
	}
}

static void emit_new_processes(void)
{
	for (; procs_emitted < scan.n; procs_emitted++)
		out_process(&scan.procs[procs_emitted]);
	out_flush();
}

static void emit_preamble(const struct options *o, int64_t started_ms)
{
	out_header(o->workload, o->ns, o->probes, o->frequency_hz, o->warmup_sec, o->duration_sec, started_ms);
	for (int i = 0; i < P__COUNT; i++)
		if (probes.requested[i])
			out_probe(probe_name(i), probes.attached[i], probes.attached[i] ? NULL : probes.reason[i]);
	if (probes.attached[P_CPU])
		out_axis("cpu", "samples", 1000000000ll / o->frequency_hz);
	if (probes.attached[P_OFFCPU])
		out_axis("offcpu", "nanoseconds", 0);
	if (probes.attached[P_SYSCALLS])
		out_axis("syscalls", "calls", 0);
	if (probes.attached[P_LOCKS])
		out_axis("locks", "nanoseconds", 0);
	if (probes.attached[P_ALLOC])
		out_axis("alloc", "bytes", 0);
	header_done = true;
	emit_new_processes();
}

/* Libraries and JIT code mapped since, and a whole new image after an execve (same pid): the
 * unwinder must know every executable mapping. During the window: sent when they changed. At its
 * end (last = true): read again for every process (what symbolization opens, while privileged)
 * and sent for every live one, since the unwinder holds back the samples of an image whose table
 * it has not had yet (unwind_child.c) and this is their last chance. */
static void refresh_mappings(size_t n, bool last)
{
	for (size_t i = 0; i < n; i++) {
		const struct proc *pr = &scan.procs[i];
		uint64_t read_ns = mono_ns(); /* before the maps are read: a change after it is seen next time */
		bool changed = last ? sym_prepare_process(pr->pid, pr->nspid) : sym_refresh_process(pr->pid, pr->nspid);
		if (pr->alive && (changed || last))
			unwind_send_process(pr->pid, false, read_ns);
	}
}

/* Sleeps until `until` (monotonic seconds) or a signal, rescanning /proc every 250 ms. */
static void wait_rescanning(double until)
{
	while (!stop_signal) {
		double left = until - now_mono();
		if (left <= 0)
			break;
		double step = left < RESCAN_NS / 1e9 ? left : RESCAN_NS / 1e9;
		struct timespec ts = { (time_t)step, (long)((step - (double)(time_t)step) * 1e9) };
		nanosleep(&ts, NULL);
		size_t first = procscan_scan(&scan, on_gone, NULL);
		/* Every scan, not once a second: a library's samples are unwound only once its mapping
		 * is known (and an exec'd image's are held back until then). */
		refresh_mappings(first, false);
		register_new(first);
		alloc_retry(&probes);
		if (header_done)
			emit_new_processes();
	}
}

static void empty_summary(bool partial, const char *reason, double measured)
{
	const char *axes[P__COUNT];
	double zeros[P__COUNT] = { 0 };
	size_t n = 0;
	for (int i = 0; i < P__COUNT; i++)
		if (probes.attached[i])
			axes[n++] = probe_name(i);
	out_summary(axes, zeros, zeros, NULL, n, partial, reason, now_ms(), measured, NULL, 0, NULL);
	out_flush();
}

int main(int argc, char **argv)
{
	phase_start();
	struct options o;
	if (parse_args(argc, argv, &o))
		return EXIT_USAGE;
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	/* One fd per mapped file of the targets is held across the capability drop: use the hard limit. */
	struct rlimit nofile;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}

	char msg[1024];
	if (features_check(msg, sizeof(msg))) { /* an older kernel: named, instead of a verifier dump */
		fprintf(stderr, "ptop: %s\n", msg);
		return EXIT_NO_PRIVILEGE;
	}
	phase("kernel features checked");
	if (o.check_kernel) { /* the Profiler's boot asks before any capture (src/profiler/boot/kernel.ts) */
		printf("ptop: %s\n", msg);
		return EXIT_OK;
	}
	if (caps_check(msg, sizeof(msg))) {
		fprintf(stderr, "ptop: missing capabilities: %s\n", msg);
		return EXIT_NO_PRIVILEGE;
	}
	struct target_list list;
	if (targets_load(o.targets_path, &list, msg, sizeof(msg))) {
		fprintf(stderr, "ptop: %s\n", msg);
		return EXIT_REFUSED;
	}
	if (!targets_allows(&list, o.workload, o.ns)) {
		fprintf(stderr, "ptop: workload \"%s\"%s%s%s is not in the target list %s; refusing to measure it\n",
			o.workload, o.ns ? " in namespace \"" : "", o.ns ? o.ns : "", o.ns ? "\"" : "", o.targets_path);
		return EXIT_REFUSED;
	}

	/* Before the BPF object is loaded: the unprivileged child that recognises CPython interpreters
	 * and finds allocation entry points in the ELF files the parent opens. */
	if (elfhelper_start(msg, sizeof(msg)))
		fprintf(stderr, "ptop: no Python frames and no alloc probes: %s\n", msg);
	phase("target list read, ELF helper started");

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	procscan_init(&scan, o.workload, o.ns, &list);
	procscan_scan(&scan, NULL, NULL);
	sym_prepare_kernel();
	phase("processes found");

	int rc;
	if (probes_start(&probes, o.probes, o.frequency_hz)) {
		emit_preamble(&o, now_ms());
		empty_summary(false, NULL, 0);
		fprintf(stderr, "ptop: no probe could be attached:");
		for (int i = 0; i < P__COUNT; i++)
			if (probes.requested[i])
				fprintf(stderr, " %s: %s;", probe_name(i), probes.reason[i]);
		fputc('\n', stderr);
		rc = EXIT_NO_PRIVILEGE;
		goto cleanup;
	}
	phase("BPF programs loaded and attached");
	for (int i = 0; i < P__COUNT; i++)
		if (probes.requested[i] && !probes.attached[i])
			fprintf(stderr, "ptop: probe %s not attached: %s\n", probe_name(i), probes.reason[i]);
	if (unwinds(&probes) && unwind_start(&probes, msg, sizeof(msg))) {
		fprintf(stderr, "ptop: cannot start the unwinder: %s\n", msg);
		rc = EXIT_INTERNAL;
		goto cleanup;
	}
	register_new(0);
	phase("unwinder started, target mappings opened and passed");
	if (scan.n == 0) {
		emit_preamble(&o, now_ms());
		empty_summary(false, NULL, 0);
		fprintf(stderr, "ptop: no process of workload \"%s\" is running on this host\n", o.workload);
		rc = EXIT_NOT_RUNNING;
		goto cleanup;
	}

	/* alloc counts as attached only with a uprobe in some target (processes found later get theirs too).
	 * A target that has just started may not have mapped its libc yet: up to 1 s for it. */
	for (int i = 0; i < 10 && probes.attached[P_ALLOC] && alloc_uprobes() == 0 && alloc_retry(&probes) > 0; i++) {
		struct timespec ts = { 0, 100000000 };
		nanosleep(&ts, NULL);
	}
	if (probes.attached[P_ALLOC] && alloc_uprobes() == 0) {
		probes.attached[P_ALLOC] = false;
		snprintf(probes.reason[P_ALLOC], sizeof(probes.reason[0]), "%s", alloc_why_none());
		fprintf(stderr, "ptop: probe alloc not attached: %s\n", probes.reason[P_ALLOC]);
	}

	double t0 = now_mono();
	wait_rescanning(t0 + o.warmup_sec);
	if (stop_signal) {
		emit_preamble(&o, now_ms());
		snprintf(msg, sizeof(msg), "%s during the %g s warmup: nothing measured",
			 stop_signal == SIGINT ? "SIGINT" : "SIGTERM", o.warmup_sec);
		empty_summary(true, msg, 0);
		rc = EXIT_INTERRUPTED;
		goto cleanup;
	}
	probes_begin_window(&probes);
	double start = now_mono();
	emit_preamble(&o, now_ms());
	phase("window open (header written)");
	wait_rescanning(start + o.duration_sec);
	/* The window ends when the kernel side stops counting: detaching the probes takes time of
	 * its own (tens of ms per link on a loaded host) that is not part of the measurement. */
	double measured = now_mono() - start;
	probes_end_window(&probes);
	phase("window closed, probes detached");
	refresh_mappings(scan.n, true);
	unwind_stop();
	bool partial = stop_signal != 0;
	char reason[128] = { 0 };
	if (partial)
		snprintf(reason, sizeof(reason), "%s after %.1f s of %g s", stop_signal == SIGINT ? "SIGINT" : "SIGTERM",
			 measured, o.duration_sec);

	struct report rep;
	report_collect(&rep, &probes);
	/* Everything a target controls is opened by now (refresh_mappings above), while privileged,
	 * and parsed only after the drop. */
	py_prepare();
	elfhelper_stop();
	if (caps_drop_all(msg, sizeof(msg))) {
		fprintf(stderr, "ptop: %s; refusing to parse target files with privileges\n", msg);
		rc = EXIT_INTERNAL;
		goto cleanup;
	}
	if (unwinds(&probes) && report_collect_unwound(&rep, &probes))
		fprintf(stderr, "ptop: the unwinder ended abnormally: its stacks may be incomplete\n");
	report_emit(&rep, &probes, partial ? reason : NULL, now_ms(), measured);
	out_flush();
	rc = partial ? EXIT_INTERRUPTED : EXIT_OK;

	/* Every path past probes_start leaves through here: links and the BPF object are released once. */
cleanup:
	probes_destroy(&probes);
	return rc;
}
