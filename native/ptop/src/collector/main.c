/* ptop: measure one listed workload with eBPF, drop every capability, symbolize, write the
 * profile stream (src/protocol/profile-stream.ts) to stdout. Exit codes: README.md. */
#include "args.h"
#include "budget.h"
#include "caps.h"
#include "kernel_features.h"
#include "monoclock.h"
#include "output.h"
#include "phase.h"
#include "probes.h"
#include "procscan.h"
#include "pyframes.h"
#include "hotspot.h"
#include "v8frames.h"
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
	return (double)mono_ns() / 1e9;
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
		uint32_t gen;
		sym_prepare_process(scan.procs[i].pid, scan.procs[i].nspid, &gen);
		unwind_send_process(scan.procs[i].pid, true, read_ns, gen);
		hs_attach(scan.procs[i].pid, false); /* a JVM: its libjvm.so and memory for the unwinder's Java walk */
		if (probes.skel && probes_add_target(&probes, (uint32_t)scan.procs[i].pid))
			fprintf(stderr, "ptop: cannot add pid %d to the target map: %s\n", scan.procs[i].pid, strerror(errno));
		else {
			py_attach(&probes.python, scan.procs[i].pid); /* a CPython: its layout for the BPF walker */
			v8_attach(&probes.v8, scan.procs[i].pid);     /* a node: its V8 layout for the BPF walker */
			for (int p = 0; p < P__COUNT; p++) /* a probe's own per-process attach (alloc: its libc's uprobes) */
				if (PROBES[p].on_target)
					PROBES[p].on_target(&probes, scan.procs[i].pid);
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
	for (int i = 0; i < P__COUNT; i++)
		if (probes.attached[i])
			out_axis(PROBES[i].name, PROBES[i].unit, PROBES[i].period_is_frequency ? 1000000000ll / o->frequency_hz : 0);
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
		uint32_t gen; /* the image they were read as (symbolize.c reads the generation around them) */
		bool changed = last ? sym_prepare_process(pr->pid, pr->nspid, &gen) : sym_refresh_process(pr->pid, pr->nspid, &gen);
		if (pr->alive && (changed || last))
			unwind_send_process(pr->pid, false, read_ns, gen);
		if (pr->alive && changed && !last)
			hs_attach(pr->pid, true); /* a JVM whose libjvm.so was not mapped yet when it was found */
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
		for (int p = 0; p < P__COUNT; p++)
			if (PROBES[p].on_rescan)
				PROBES[p].on_rescan(&probes);
		if (header_done) {
			emit_new_processes();
			budget_tick(&probes);
		}
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

/* Up to the BPF load: the kernel, the capabilities, the target list, the ELF helper. -1 to go on,
 * else the exit code (and for --check-kernel, the check's answer). */
static int check_start(const struct options *o, struct target_list *list, char *msg, size_t len)
{
	if (features_check(msg, len)) { /* an older kernel: named, instead of a verifier dump */
		fprintf(stderr, "ptop: %s\n", msg);
		return EXIT_NO_PRIVILEGE;
	}
	phase("kernel features checked");
	if (o->check_kernel) { /* the Profiler's boot asks before any capture (src/profiler/boot/kernel.ts) */
		printf("ptop: %s\n", msg);
		return EXIT_OK;
	}
	if (caps_check(msg, len)) {
		fprintf(stderr, "ptop: missing capabilities: %s\n", msg);
		return EXIT_NO_PRIVILEGE;
	}
	if (targets_load(o->targets_path, list, msg, len)) {
		fprintf(stderr, "ptop: %s\n", msg);
		return EXIT_REFUSED;
	}
	if (!targets_allows(list, o->workload, o->ns)) {
		fprintf(stderr, "ptop: workload \"%s\"%s%s%s is not in the target list %s; refusing to measure it\n",
			o->workload, o->ns ? " in namespace \"" : "", o->ns ? o->ns : "", o->ns ? "\"" : "", o->targets_path);
		return EXIT_REFUSED;
	}
	/* Before the BPF object is loaded: the unprivileged child that recognises CPython interpreters
	 * and finds allocation entry points in the ELF files the parent opens. */
	if (elfhelper_start(msg, len))
		fprintf(stderr, "ptop: no Python frames and no alloc probes: %s\n", msg);
	phase("target list read, ELF helper started");
	return -1;
}

/* Loads and attaches the probes, starts the unwinder, registers the targets found. -1 to go on,
 * else the exit code (the stream then has its preamble and an empty summary). */
/* symbolize.c's source of exec generations: the BPF targets map (exec.bpf.c). */
static uint32_t target_gen(int pid, void *arg)
{
	(void)arg;
	return probes_target_gen(&probes, (uint32_t)pid);
}

static int start_probes(const struct options *o, char *msg, size_t len)
{
	sym_gen_source(target_gen, NULL);
	if (probes_start(&probes, o->probes, o->frequency_hz)) {
		emit_preamble(o, now_ms());
		empty_summary(false, NULL, 0);
		fprintf(stderr, "ptop: no probe could be attached:");
		for (int i = 0; i < P__COUNT; i++)
			if (probes.requested[i])
				fprintf(stderr, " %s: %s;", probe_name(i), probes.reason[i]);
		fputc('\n', stderr);
		return EXIT_NO_PRIVILEGE;
	}
	phase("BPF programs loaded and attached");
	for (int i = 0; i < P__COUNT; i++)
		if (probes.requested[i] && !probes.attached[i])
			fprintf(stderr, "ptop: probe %s not attached: %s\n", probe_name(i), probes.reason[i]);
	if (probes_unwind(&probes) && unwind_start(&probes, msg, len)) {
		fprintf(stderr, "ptop: cannot start the unwinder: %s\n", msg);
		return EXIT_INTERNAL;
	}
	register_new(0);
	phase("unwinder started, target mappings opened and passed");
	if (scan.n == 0) {
		emit_preamble(o, now_ms());
		empty_summary(false, NULL, 0);
		fprintf(stderr, "ptop: no process of workload \"%s\" is running on this host\n", o->workload);
		return EXIT_NOT_RUNNING;
	}
	for (int i = 0; i < P__COUNT; i++)
		if (probes.attached[i] && PROBES[i].settle && !PROBES[i].settle(&probes, i)) {
			probes.attached[i] = false;
			fprintf(stderr, "ptop: probe %s not attached: %s\n", probe_name(i), probes.reason[i]);
		}
	return -1;
}

/* The warmup, then the window. -1 to go on with *measured seconds, else the exit code. */
static int measure(const struct options *o, double *measured, char *msg, size_t len)
{
	double t0 = now_mono();
	wait_rescanning(t0 + o->warmup_sec);
	if (stop_signal) {
		emit_preamble(o, now_ms());
		snprintf(msg, len, "%s during the %g s warmup: nothing measured", stop_signal == SIGINT ? "SIGINT" : "SIGTERM",
			 o->warmup_sec);
		empty_summary(true, msg, 0);
		return EXIT_INTERRUPTED;
	}
	probes_begin_window(&probes);
	double start = now_mono();
	emit_preamble(o, now_ms());
	phase("window open (header written)");
	budget_begin(&probes, probes.attached[P_CPU] ? o->frequency_hz : 0);
	wait_rescanning(start + o->duration_sec);
	/* The window ends when the kernel side stops counting: detaching the probes takes time of
	 * its own (tens of ms per link on a loaded host) that is not part of the measurement. */
	*measured = now_mono() - start;
	probes_end_window(&probes);
	budget_end();
	phase("window closed, probes detached");
	refresh_mappings(scan.n, true);
	unwind_stop();
	return -1;
}

/* The report's three stages around the capability drop: collect (privileged), then resolve and
 * emit. Returns the exit code. */
static int write_report(const struct options *o, double measured, char *msg, size_t len)
{
	bool partial = stop_signal != 0;
	char reason[128] = { 0 };
	if (partial)
		snprintf(reason, sizeof(reason), "%s after %.1f s of %g s", stop_signal == SIGINT ? "SIGINT" : "SIGTERM",
			 measured, o->duration_sec);
	struct report rep;
	report_collect(&rep, &probes);
	/* Everything a target controls is opened by now (refresh_mappings, at the window's end), while
	 * privileged, and parsed only after the drop. */
	py_prepare();
	v8_prepare();
	elfhelper_stop();
	if (caps_drop_all(msg, len)) {
		fprintf(stderr, "ptop: %s; refusing to parse target files with privileges\n", msg);
		return EXIT_INTERNAL;
	}
	if (probes_unwind(&probes) && report_collect_unwound(&rep, &probes))
		fprintf(stderr, "ptop: the unwinder ended abnormally: its stacks may be incomplete\n");
	report_resolve(&rep, &probes);
	report_emit(&rep, &probes, partial ? reason : NULL, now_ms(), measured);
	out_flush();
	return partial ? EXIT_INTERRUPTED : EXIT_OK;
}

/* One fd per mapped file of the targets is held across the capability drop: use the hard limit. */
static void raise_nofile(void)
{
	struct rlimit nofile;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
}

int main(int argc, char **argv)
{
	phase_start();
	struct options o;
	if (parse_args(argc, argv, &o))
		return EXIT_USAGE;
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	raise_nofile();
	char msg[1024];
	struct target_list list;
	int rc = check_start(&o, &list, msg, sizeof(msg));
	if (rc >= 0)
		return rc;

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

	double measured = 0;
	rc = start_probes(&o, msg, sizeof(msg));
	if (rc < 0)
		rc = measure(&o, &measured, msg, sizeof(msg));
	if (rc < 0)
		rc = write_report(&o, measured, msg, sizeof(msg));
	/* Every path past probes_start leaves through here: links and the BPF object are released once. */
	probes_destroy(&probes);
	return rc;
}
