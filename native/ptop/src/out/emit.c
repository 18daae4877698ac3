/* The emit stage (report.h): every attached axis's stacks, then the summary with the notes on what
 * the stream leaves out. */
#include "report.h"
#include "output.h"
#include "probe_ran.h"
#include "pyframes.h"
#include "hotspot.h"
#include "v8frames.h"
#include "symbolize.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Notes for what the stream's budget left out (output.h): at most P__COUNT + 1. */
static size_t budget_notes(const char **notes, const struct left_out *left)
{
	static char left_note[P__COUNT][300], procs_note[200];
	char budget[32];
	unsigned long long b = PTOP_STREAM_BUDGET;
	snprintf(budget, sizeof(budget), b >= 1ull << 20 ? "%llu MiB" : "%llu bytes", b >= 1ull << 20 ? b >> 20 : b);
	size_t n = 0;
	for (int i = 0; i < P__COUNT; i++)
		if (left[i].stacks) {
			snprintf(left_note[i], sizeof(left_note[i]),
				 "%s: %zu stacks holding %.0f of the axis's value are not in the stream (counted as lost): it "
				 "reached ptop's limit of %s, and stacks went in largest first",
				 probe_name(i), left[i].stacks, left[i].value, budget);
			notes[n++] = left_note[i];
		}
	if (out_processes_left_out()) {
		snprintf(procs_note, sizeof(procs_note),
			 "%zu target processes have no process record: the stream reached ptop's limit of %s",
			 out_processes_left_out(), budget);
		notes[n++] = procs_note;
	}
	return n;
}

/* Per axis: its stacks that did not reach their root (over 5%), and its samples the unwinder could
 * not aggregate. Writes at most 2 * P__COUNT notes. */
static size_t axis_notes(const struct report *r, const struct probes *p, const char **notes)
{
	static char incomplete_note[P__COUNT][160], dropped_note[P__COUNT][200];
	size_t nn = 0;
	for (int i = 0; i < P__COUNT; i++) {
		const struct axis_result *a = &r->axes[i];
		if (a->total > 0 && a->incomplete / a->total > 0.05) {
			snprintf(incomplete_note[i], sizeof(incomplete_note[i]),
				 "%s: %.1f%% of the stacks could not be walked to their root (a [truncated] frame marks them): "
				 "callers and inclusive figures are incomplete", probe_name(i), 100 * a->incomplete / a->total);
			notes[nn++] = incomplete_note[i];
		}
	}
	for (int i = 0; i < P__COUNT; i++)
		if (p->attached[i] && (r->unwound.full[i] || r->unwound.no_memory[i])) {
			snprintf(dropped_note[i], sizeof(dropped_note[i]),
				 "%s: %" PRIu64 " samples are in no stack (counted as lost): the unwinder's aggregate was full for %" PRIu64
				 " and out of memory for %" PRIu64,
				 probe_name(i), r->unwound.full[i] + r->unwound.no_memory[i], r->unwound.full[i], r->unwound.no_memory[i]);
			notes[nn++] = dropped_note[i];
		}
	return nn;
}

/* An attached machine-wide probe whose program never ran: said in the summary and on stderr. */
static void report_never_ran(const struct report *r, const struct probes *p, double measured)
{
	static char never_ran[P__COUNT][512];
	for (int i = 0; i < P__COUNT; i++) {
		bool ran = PROBES[i].machine_wide && r->ran[i];
		if (probe_never_ran(i, p->attached[i], ran, measured, never_ran[i], sizeof(never_ran[i]))) {
			out_summary_not_fired(probe_name(i), never_ran[i]);
			fprintf(stderr, "ptop: probe %s %s\n", probe_name(i), never_ran[i]);
		}
	}
}

/* The probes' own extra summary members (",\"locks\":[…]"), joined; NULL when none. */
static char *probes_summary_json(const struct probes *p)
{
	char *all = NULL;
	for (int i = 0; i < P__COUNT; i++) {
		char *mine = p->attached[i] && PROBES[i].summary_json ? PROBES[i].summary_json() : NULL;
		if (!mine)
			continue;
		char *joined = NULL;
		if (asprintf(&joined, "%s%s", all ? all : "", mine) < 0)
			joined = NULL;
		free(all);
		free(mine);
		all = joined;
	}
	return all;
}

void report_emit(struct report *r, const struct probes *p, const char *partial_reason, int64_t ended_ms, double measured)
{
	const char *axes[P__COUNT];
	double samples[P__COUNT], lost[P__COUNT], incomplete[P__COUNT];
	struct left_out left[P__COUNT] = { 0 };
	size_t na = 0;
	for (int i = 0; i < P__COUNT; i++) {
		if (!p->attached[i])
			continue;
		left[i] = agg_emit(&r->axes[i].agg, probe_name(i));
		axes[na] = probe_name(i);
		/* Every sample (wait, call) taken is in a stack or lost, counted alike (a cpu sample the
		 * budget kept counts the N it stands for everywhere), so that samples = lost + the events in
		 * the stacks; on the axes whose value is a count (cpu, syscalls), their values' sum. */
		samples[na] = (double)samples_taken(r, i);
		/* Lost: the sample did not reach the stream, in the kernel (ring buffer or map full), in the
		 * unwinder (aggregate full, out of memory) or at the stream's budget: never dropped silently. */
		lost[na] = (double)r->stat[PTOP_STAT(i, STAT_LOST)] + (double)r->unwound.full[i] + (double)r->unwound.no_memory[i] +
			   left[i].events;
		incomplete[na] = r->axes[i].incomplete;
		na++;
		if (PROBES[i].total_stat >= 0) /* counted exactly while its stacks are sampled */
			out_summary_total(probe_name(i), (double)r->stat[PROBES[i].total_stat]);
	}
	report_never_ran(r, p, measured);
	const char *notes[16 + 8 + 3 * P__COUNT + 2 * P__COUNT + P__COUNT + 1 + PROBE_NOTES_MAX * P__COUNT + 1];
	size_t nn = py_notes(notes, 8);
	nn += v8_notes(&notes[nn], 8);
	nn += hs_notes(&notes[nn], 8);
	nn += loss_notes(r, p, &notes[nn]);
	nn += axis_notes(r, p, &notes[nn]);
	nn += budget_notes(&notes[nn], left);
	for (int i = 0; i < P__COUNT; i++)
		if (p->attached[i] && PROBES[i].notes)
			nn += PROBES[i].notes(r, p, &notes[nn]);
	if (r->any_kernel && sym_kernel_hidden())
		notes[nn++] = "kernel frames unsymbolized: /proc/kallsyms addresses are hidden from ptop (kptr_restrict / "
			      "perf_event_paranoid; CAP_SYSLOG is not one of ptop's capabilities)";
	char *extra = probes_summary_json(p);
	out_summary(axes, samples, lost, incomplete, na, partial_reason != NULL, partial_reason, ended_ms, measured, notes, nn,
		    extra);
	free(extra);
}
