#include "report.h"
#include "alloc.h"
#include "output.h"
#include "ptop.skel.h"
#include "strtab.h"
#include "symbolize.h"
#include "interp.h"
#include "locks_report.h"
#include "probe_ran.h"
#include "pyframes.h"
#include "python.h"
#include "unwind.h"
#include <bpf/libbpf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_tgid(struct report *r, int tgid)
{
	for (size_t i = 0; i < r->ntgids; i++)
		if (r->tgids[i] == tgid)
			return;
	r->tgids = xrealloc(r->tgids, r->ntgids + 1, sizeof(int));
	r->tgids[r->ntgids++] = tgid;
}

static void load_stack(struct report *r, struct probes *p, int32_t id)
{
	if (id < 0 || id >= PTOP_MAX_STACKS || r->stacks[id])
		return;
	uint64_t *ips = xcalloc(PTOP_MAX_STACK_DEPTH, sizeof(uint64_t));
	uint32_t key = (uint32_t)id;
	if (bpf_map__lookup_elem(p->skel->maps.stacks, &key, sizeof(key), ips, PTOP_MAX_STACK_DEPTH * sizeof(uint64_t), 0)) {
		free(ips);
		return;
	}
	r->stacks[id] = ips;
}

struct collect_ctx {
	struct report *r;
	struct probes *p;
	size_t cap[P__COUNT];
};

static void on_unwound(const struct unwound_hdr *h, const uint64_t *pcs, const uint8_t *interp, void *arg)
{
	struct collect_ctx *c = arg;
	struct report *r = c->r;
	struct stack_count **arr = h->axis == P_CPU ? &r->cpu : h->axis == P_LOCKS ? &r->locks : h->axis == P_ALLOC ? &r->alloc : &r->offcpu;
	size_t *n = h->axis == P_CPU ? &r->ncpu : h->axis == P_LOCKS ? &r->nlocks : h->axis == P_ALLOC ? &r->nalloc : &r->noffcpu;
	size_t *cap = &c->cap[h->axis];
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 1024;
		*arr = xrealloc(*arr, *cap, sizeof(**arr));
	}
	struct stack_count *sc = &(*arr)[(*n)++];
	memset(sc, 0, sizeof(*sc));
	sc->key.tgid = h->tgid;
	sc->key.ustack = -1;
	sc->key.kstack = h->kstack;
	sc->value = (uint64_t)h->value;
	sc->lock = h->lock;
	sc->events = (uint64_t)h->events;
	sc->npcs = h->npcs;
	sc->truncated = h->truncated != 0;
	sc->pcs = xcalloc(h->npcs ? h->npcs : 1, sizeof(uint64_t));
	memcpy(sc->pcs, pcs, h->npcs * sizeof(uint64_t));
	if (h->interp_len) {
		sc->interp = xcalloc(h->interp_len, 1);
		memcpy(sc->interp, interp, h->interp_len);
		sc->interp_len = h->interp_len;
	}
	load_stack(r, c->p, h->kstack);
	add_tgid(r, (int)h->tgid);
}

int report_collect_unwound(struct report *r, struct probes *p)
{
	struct collect_ctx c = { r, p, { 0 } };
	return unwind_collect(on_unwound, &c, &r->unwound);
}

void report_collect(struct report *r, struct probes *p)
{
	memset(r, 0, sizeof(*r));
	r->stacks = xcalloc(PTOP_MAX_STACKS, sizeof(uint64_t *));
	if (p->attached[P_SYSCALLS]) {
		struct sys_key key, next;
		size_t cap = 0;
		int first = 1;
		while (bpf_map__get_next_key(p->skel->maps.sys_counts, first ? NULL : &key, &next, sizeof(next)) == 0) {
			first = 0;
			key = next;
			struct sys_val v;
			if (bpf_map__lookup_elem(p->skel->maps.sys_counts, &key, sizeof(key), &v, sizeof(v), 0))
				continue;
			if (r->nsys == cap) {
				cap = cap ? cap * 2 : 256;
				r->sys = xrealloc(r->sys, cap, sizeof(*r->sys));
			}
			r->sys[r->nsys++] = (struct sys_count){ key, v };
		}
	}
	for (int i = 0; i < STAT__COUNT; i++)
		r->stat[i] = probes_stat(p, i);
	for (int i = 0; i < RAN__COUNT; i++)
		r->ran[i] = p->skel->bss->ran[i] != 0;
}

/* Aggregation of symbolized stacks: different addresses in one function fold into one stack. */
struct agg {
	struct strmap index;
	struct agg_item {
		int pid;
		int *ids;
		size_t n;
		double value, total_ns;
	} *items;
	size_t n;
};

static void agg_add(struct agg *a, int pid, const int *ids, size_t n, double value, double total_ns)
{
	size_t klen = 16 + n * 12;
	char *key = xcalloc(klen, 1);
	size_t off = (size_t)snprintf(key, klen, "%d|", pid);
	for (size_t i = 0; i < n; i++)
		off += (size_t)snprintf(key + off, klen - off, "%d,", ids[i]);
	int idx = strmap_get(&a->index, key);
	if (idx < 0) {
		a->items = xrealloc(a->items, a->n + 1, sizeof(*a->items));
		struct agg_item *it = &a->items[a->n];
		it->pid = pid;
		it->ids = xcalloc(n ? n : 1, sizeof(int));
		memcpy(it->ids, ids, n * sizeof(int));
		it->n = n;
		it->value = 0;
		it->total_ns = total_ns >= 0 ? 0 : -1;
		idx = (int)a->n++;
		strmap_put(&a->index, key, idx);
	}
	free(key);
	a->items[idx].value += value;
	if (total_ns >= 0)
		a->items[idx].total_ns += total_ns;
}

static int by_value_desc(const void *x, const void *y)
{
	const struct agg_item *a = x, *b = y;
	if (a->value != b->value)
		return a->value < b->value ? 1 : -1;
	return a->pid != b->pid ? (a->pid < b->pid ? -1 : 1) : (a->n < b->n ? -1 : a->n > b->n);
}

/* What a full stream left out of one axis (output.h, PTOP_STREAM_BUDGET). */
struct left_out {
	size_t stacks;
	double value;
};

/* Largest stacks first: when the stream reaches its budget, what is left out is the rarest. */
static struct left_out agg_emit(struct agg *a, const char *axis)
{
	struct left_out left = { 0, 0 };
	qsort(a->items, a->n, sizeof(*a->items), by_value_desc);
	for (size_t i = 0; i < a->n; i++) {
		if (!out_stack(axis, a->items[i].ids, a->items[i].n, a->items[i].value, a->items[i].total_ns, a->items[i].pid)) {
			left.stacks++;
			left.value += a->items[i].value;
		}
		free(a->items[i].ids);
	}
	free(a->items);
	strmap_free(&a->index);
	memset(a, 0, sizeof(*a));
	return left;
}

static struct strmap addr_frames; /* "pid:addr" / "k:addr" -> frame id */

/* Function name per native frame id, for interp_merge (which looks for the evaluation loop). */
static char **frame_functions;
static size_t nframe_functions;

static void remember_function(int id, const struct frame_info *fi)
{
	if (id < 0 || !fi->function)
		return;
	if ((size_t)id >= nframe_functions) {
		size_t n = (size_t)id * 2 + 64;
		frame_functions = xrealloc(frame_functions, n, sizeof(char *));
		memset(frame_functions + nframe_functions, 0, (n - nframe_functions) * sizeof(char *));
		nframe_functions = n;
	}
	if (!frame_functions[id])
		frame_functions[id] = strdup(fi->function);
}

static int user_frame(int pid, uint64_t addr, int leaf)
{
	char key[48];
	snprintf(key, sizeof(key), "%d:%" PRIx64 ":%d", pid, addr, leaf);
	int id = strmap_get(&addr_frames, key);
	if (id >= 0)
		return id;
	struct frame_info fi;
	/* A return address points after the call: look up the call instruction itself. */
	sym_resolve_user(pid, leaf ? addr : addr - 1, &fi);
	id = out_frame_id(&fi);
	remember_function(id, &fi);
	strmap_put(&addr_frames, key, id);
	return id;
}

static int kernel_frame(uint64_t addr)
{
	char key[48];
	snprintf(key, sizeof(key), "k:%" PRIx64, addr);
	int id = strmap_get(&addr_frames, key);
	if (id >= 0)
		return id;
	struct frame_info fi;
	sym_resolve_kernel(addr, &fi);
	if (!fi.function && sym_kernel_hidden()) {
		/* Addresses hidden by kptr_restrict: one opaque frame instead of one per address. */
		fi.function = "[kernel]";
		fi.address = 0;
	}
	id = out_frame_id(&fi);
	strmap_put(&addr_frames, key, id);
	return id;
}

static int truncated_frame(void)
{
	struct frame_info fi = { .function = "[truncated]", .kind = "unknown" };
	return out_frame_id(&fi);
}

/* Root-first frame ids of one stack; *incomplete when its user part does not reach a root frame. */
static size_t stack_frames(struct report *r, const struct stack_count *sc, int *ids, bool *incomplete)
{
	const struct stack_key *k = &sc->key;
	size_t n = 0;
	*incomplete = false;
	const size_t first_user = 0;
	/* BPF stacks are leaf first; the stream wants root first: user root .. user leaf, kernel entry .. kernel leaf. */
	if (sc->npcs > 0 || sc->truncated) {
		const uint64_t *ips = sc->pcs;
		int depth = (int)sc->npcs;
		bool cut = sc->truncated;
		/* The unwinder already ends a stack at a pc outside the mappings it knew; the mappings
		 * read at the end of the window are checked again here. */
		for (int i = 0; i < depth; i++)
			if (sym_in_mapping((int)k->tgid, ips[i]) == 0) {
				depth = i;
				cut = true;
				break;
			}
		/* The unwinder ends a walk without error only where the CFI says the stack ends
		 * (_start and the thread entry mark their return address undefined). Otherwise the
		 * stack is rooted in a [truncated] frame, even when not a single user frame was read. */
		if (cut) {
			ids[n++] = truncated_frame();
			*incomplete = true;
		}
		for (int i = depth - 1; i >= 0; i--)
			ids[n++] = user_frame((int)k->tgid, ips[i], 1); /* already the call site */
	}
	if (sc->interp_len) {
		/* Python frames where the evaluation loop's frames stand (interp.c) */
		int native[PTOP_MAX_UNWIND_DEPTH + 1], merged[PTOP_MAX_UNWIND_DEPTH + 1 + PY_MAX_FRAMES];
		const char *functions[PTOP_MAX_UNWIND_DEPTH + 1];
		size_t nn = n - first_user;
		memcpy(native, &ids[first_user], nn * sizeof(int));
		for (size_t i = 0; i < nn; i++)
			functions[i] = native[i] >= 0 && (size_t)native[i] < nframe_functions ? frame_functions[native[i]] : NULL;
		size_t m = interp_merge((int)k->tgid, sc->interp, sc->interp_len, native, functions, nn, merged,
					PTOP_MAX_UNWIND_DEPTH + 1 + PY_MAX_FRAMES);
		memcpy(&ids[first_user], merged, m * sizeof(int));
		n = first_user + m;
	}
	if (k->kstack >= 0 && k->kstack < PTOP_MAX_STACKS && r->stacks[k->kstack]) {
		uint64_t *ips = r->stacks[k->kstack];
		int depth = 0;
		while (depth < PTOP_MAX_STACK_DEPTH && ips[depth])
			depth++;
		for (int i = depth - 1; i >= 0; i--) {
			int id = kernel_frame(ips[i]);
			if (n && ids[n - 1] == id && sym_kernel_hidden())
				continue;
			ids[n++] = id;
		}
	}
	if (n == 0) {
		struct frame_info fi = { .function = "[no stack]", .kind = "unknown" };
		ids[n++] = out_frame_id(&fi);
	}
	return n;
}

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

void report_emit(struct report *r, struct probes *p, const char *partial_reason, int64_t ended_ms, double measured)
{
	int ids[PTOP_MAX_UNWIND_DEPTH + PTOP_MAX_STACK_DEPTH + PY_MAX_FRAMES + 2];
	struct agg a;
	bool any_kernel = false, incomplete;
	/* Axis value (samples, ns) in stacks that did not reach their root, and the axis total. */
	double inc[P__COUNT] = { 0 }, tot[P__COUNT] = { 0 };
	struct left_out left[P__COUNT] = { 0 };
	memset(&a, 0, sizeof(a));
	for (size_t i = 0; i < r->ncpu; i++) {
		size_t n = stack_frames(r, &r->cpu[i], ids, &incomplete);
		any_kernel |= r->cpu[i].key.kstack >= 0;
		tot[P_CPU] += (double)r->cpu[i].value;
		inc[P_CPU] += incomplete ? (double)r->cpu[i].value : 0;
		agg_add(&a, (int)r->cpu[i].key.tgid, ids, n, (double)r->cpu[i].value, -1);
	}
	left[P_CPU] = agg_emit(&a, "cpu");
	for (size_t i = 0; i < r->noffcpu; i++) {
		size_t n = stack_frames(r, &r->offcpu[i], ids, &incomplete);
		any_kernel |= r->offcpu[i].key.kstack >= 0;
		tot[P_OFFCPU] += (double)r->offcpu[i].value;
		inc[P_OFFCPU] += incomplete ? (double)r->offcpu[i].value : 0;
		agg_add(&a, (int)r->offcpu[i].key.tgid, ids, n, (double)r->offcpu[i].value, -1);
	}
	left[P_OFFCPU] = agg_emit(&a, "offcpu");
	for (size_t i = 0; p->attached[P_ALLOC] && i < r->nalloc; i++) {
		size_t n = stack_frames(r, &r->alloc[i], ids, &incomplete);
		tot[P_ALLOC] += (double)r->alloc[i].value;
		inc[P_ALLOC] += incomplete ? (double)r->alloc[i].value : 0;
		agg_add(&a, (int)r->alloc[i].key.tgid, ids, n, (double)r->alloc[i].value, -1);
	}
	left[P_ALLOC] = agg_emit(&a, "alloc");
	for (size_t i = 0; i < r->nsys; i++) {
		int id = out_syscall_frame_id(r->sys[i].key.nr);
		agg_add(&a, (int)r->sys[i].key.tgid, &id, 1, (double)r->sys[i].val.calls, (double)r->sys[i].val.total_ns);
	}
	left[P_SYSCALLS] = agg_emit(&a, "syscalls");
	struct locks_table locks;
	locks_table_init(&locks);
	for (size_t i = 0; i < r->nlocks; i++) {
		const struct stack_count *sc = &r->locks[i];
		size_t n = stack_frames(r, sc, ids, &incomplete);
		tot[P_LOCKS] += (double)sc->value;
		inc[P_LOCKS] += incomplete ? (double)sc->value : 0;
		agg_add(&a, (int)sc->key.tgid, ids, n, (double)sc->value, -1);
		locks_table_add(&locks, (int)sc->key.tgid, sc->lock, sc->value, sc->events, ids, n);
	}
	left[P_LOCKS] = agg_emit(&a, "locks");

	const char *axes[P__COUNT];
	double samples[P__COUNT], lost[P__COUNT], incompl[P__COUNT];
	size_t na = 0;
	static const int slots[P__COUNT][2] = {
		{ STAT_CPU_SAMPLES, STAT_CPU_LOST }, { STAT_OFFCPU_EVENTS, STAT_OFFCPU_LOST }, { STAT_SYS_EVENTS, STAT_SYS_LOST },
		{ STAT_LOCK_EVENTS, STAT_LOCK_LOST }, { STAT_ALLOC_SAMPLES, STAT_ALLOC_LOST }
	};
	for (int i = 0; i < P__COUNT; i++) {
		if (!p->attached[i])
			continue;
		axes[na] = probe_name(i);
		samples[na] = (double)r->stat[slots[i][0]];
		/* Lost: the sample or its stack did not reach the stream, in the kernel (ring buffer or map
		 * full), in the unwinder (aggregate full, out of memory) or at the stream's budget: never
		 * dropped silently. */
		lost[na] = (double)r->stat[slots[i][1]] + (double)r->unwound.full[i] + (double)r->unwound.no_memory[i] +
			   left[i].value;
		incompl[na] = inc[i];
		na++;
	}
	static char never_ran[RAN__COUNT][512];
	for (int i = 0; i < RAN__COUNT; i++)
		if (probe_never_ran(i, p->attached[i], r->ran[i], measured, never_ran[i], sizeof(never_ran[i]))) {
			out_summary_not_fired(probe_name(i), never_ran[i]);
			fprintf(stderr, "ptop: probe %s %s\n", probe_name(i), never_ran[i]);
		}
	const char *notes[3 * P__COUNT + 2 + 16 + 3 + 4];
	static char incomplete_note[P__COUNT][160];
	size_t nn = py_notes(notes, 16);
	for (int i = 0; i < P__COUNT; i++)
		if (tot[i] > 0 && inc[i] / tot[i] > 0.05) {
			snprintf(incomplete_note[i], sizeof(incomplete_note[i]),
				 "%s: %.1f%% of the stacks could not be walked to their root (a [truncated] frame marks them): "
				 "callers and inclusive figures are incomplete", probe_name(i), 100 * inc[i] / tot[i]);
			notes[nn++] = incomplete_note[i];
		}
	static char dropped_note[P__COUNT][200];
	for (int i = 0; i < P__COUNT; i++)
		if (p->attached[i] && (r->unwound.full[i] || r->unwound.no_memory[i])) {
			snprintf(dropped_note[i], sizeof(dropped_note[i]),
				 "%s: %" PRIu64 " samples are in no stack (counted as lost): the unwinder's aggregate was full for %" PRIu64
				 " and out of memory for %" PRIu64,
				 probe_name(i), r->unwound.full[i] + r->unwound.no_memory[i], r->unwound.full[i], r->unwound.no_memory[i]);
			notes[nn++] = dropped_note[i];
		}
	nn += budget_notes(&notes[nn], left);
	static char alloc_note[640];
	if (p->attached[P_ALLOC]) {
		/* Exact: every byte and call (BPF counters). Estimated: the split between stacks. */
		out_summary_total("alloc", (double)r->stat[STAT_ALLOC_BYTES]);
		snprintf(alloc_note, sizeof(alloc_note),
			 "alloc: %" PRIu64 " bytes in %" PRIu64 " calls to %s, counted exactly (the summary's totals); "
			 "the split between stacks is estimated from %" PRIu64 " stacks, one per %u KiB on average at "
			 "random intervals, each credited with the bytes since the previous one (%.0f bytes in stacks; "
			 "%" PRIu64 " lost)",
			 r->stat[STAT_ALLOC_BYTES], r->stat[STAT_ALLOC_CALLS], alloc_functions()[0] ? alloc_functions() : "no function",
			 r->stat[STAT_ALLOC_SAMPLES], PTOP_ALLOC_PERIOD / 1024, tot[P_ALLOC],
			 r->stat[STAT_ALLOC_LOST] + r->unwound.full[P_ALLOC] + r->unwound.no_memory[P_ALLOC]);
		notes[nn++] = alloc_note;
		/* A process without a uprobe allocates unseen: the totals are then the covered ones'. */
		static char coverage_note[900];
		struct alloc_coverage c = alloc_coverage();
		if (c.covered < c.processes) {
			int off = snprintf(coverage_note, sizeof(coverage_note),
					   "alloc: %zu of %zu target processes got no allocation uprobe, so their allocations are "
					   "not counted:", c.processes - c.covered, c.processes);
			const char *sep = "";
			char bound[96];
			snprintf(bound, sizeof(bound), "over the bound of %d processes waiting for their libc", PTOP_MAX_TARGETS);
			struct { size_t n; const char *why; } parts[] = {
				{ c.gone, "exited before their libc was found" },
				{ c.no_entry_point, "no libc or allocation entry point found within 2 s" },
				{ c.not_queued, bound },
				{ c.still_pending, "still waiting for their libc when the window closed" },
			};
			for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
				if (parts[i].n && off > 0 && (size_t)off < sizeof(coverage_note)) {
					off += snprintf(coverage_note + off, sizeof(coverage_note) - (size_t)off, "%s %zu %s", sep, parts[i].n,
							parts[i].why);
					sep = ";";
				}
			if (c.no_entry_point && off > 0 && (size_t)off < sizeof(coverage_note))
				snprintf(coverage_note + off, sizeof(coverage_note) - (size_t)off, " (last: %s)", alloc_why_none());
			notes[nn++] = coverage_note;
		}
	}
	if (any_kernel && sym_kernel_hidden())
		notes[nn++] = "kernel frames unsymbolized: /proc/kallsyms addresses are hidden from ptop (kptr_restrict / "
			      "perf_event_paranoid; CAP_SYSLOG is not one of ptop's capabilities)";
	char *locks_json = NULL;
	if (p->attached[P_LOCKS]) {
		nn += locks_notes(&notes[nn], r->stat[STAT_LOCK_OTHER_WAITS], r->stat[STAT_LOCK_OTHER_NS], p->locks_waitv);
		locks_json = locks_table_json(&locks);
	}
	locks_table_free(&locks);
	out_summary(axes, samples, lost, incompl, na, partial_reason != NULL, partial_reason, ended_ms, measured, notes, nn,
		    locks_json);
	free(locks_json);
}
