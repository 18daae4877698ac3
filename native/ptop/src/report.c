#include "report.h"
#include "output.h"
#include "ptop.skel.h"
#include "strtab.h"
#include "symbolize.h"
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

static void read_stack_counts(struct report *r, struct probes *p, struct bpf_map *map, struct stack_count **out, size_t *n)
{
	struct stack_key key, next;
	size_t cap = 0;
	int first = 1;
	while (bpf_map__get_next_key(map, first ? NULL : &key, &next, sizeof(next)) == 0) {
		first = 0;
		key = next;
		uint64_t v;
		if (bpf_map__lookup_elem(map, &key, sizeof(key), &v, sizeof(v), 0))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 1024;
			*out = xrealloc(*out, cap, sizeof(**out));
		}
		(*out)[(*n)++] = (struct stack_count){ key, v };
		load_stack(r, p, key.ustack);
		load_stack(r, p, key.kstack);
		add_tgid(r, (int)key.tgid);
	}
}

void report_collect(struct report *r, struct probes *p)
{
	memset(r, 0, sizeof(*r));
	r->stacks = xcalloc(PTOP_MAX_STACKS, sizeof(uint64_t *));
	if (p->attached[P_CPU])
		read_stack_counts(r, p, p->skel->maps.cpu_counts, &r->cpu, &r->ncpu);
	if (p->attached[P_OFFCPU])
		read_stack_counts(r, p, p->skel->maps.offcpu_ns, &r->offcpu, &r->noffcpu);
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

static void agg_emit(struct agg *a, const char *axis)
{
	for (size_t i = 0; i < a->n; i++) {
		out_stack(axis, a->items[i].ids, a->items[i].n, a->items[i].value, a->items[i].total_ns, a->items[i].pid);
		free(a->items[i].ids);
	}
	free(a->items);
	strmap_free(&a->index);
	memset(a, 0, sizeof(*a));
}

static struct strmap addr_frames; /* "pid:addr" / "k:addr" -> frame id */

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

static size_t stack_frames(struct report *r, const struct stack_key *k, int *ids)
{
	size_t n = 0;
	/* BPF stacks are leaf first; the stream wants root first: user root .. user leaf, kernel entry .. kernel leaf. */
	if (k->ustack >= 0 && k->ustack < PTOP_MAX_STACKS && r->stacks[k->ustack]) {
		uint64_t *ips = r->stacks[k->ustack];
		int depth = 0;
		while (depth < PTOP_MAX_STACK_DEPTH && ips[depth])
			depth++;
		for (int i = depth - 1; i >= 0; i--)
			ids[n++] = user_frame((int)k->tgid, ips[i], i == 0);
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

void report_emit(struct report *r, struct probes *p, const char *partial_reason, int64_t ended_ms, double measured)
{
	int ids[2 * PTOP_MAX_STACK_DEPTH + 1];
	struct agg a;
	bool any_kernel = false;
	memset(&a, 0, sizeof(a));
	for (size_t i = 0; i < r->ncpu; i++) {
		size_t n = stack_frames(r, &r->cpu[i].key, ids);
		any_kernel |= r->cpu[i].key.kstack >= 0;
		agg_add(&a, (int)r->cpu[i].key.tgid, ids, n, (double)r->cpu[i].value, -1);
	}
	agg_emit(&a, "cpu");
	for (size_t i = 0; i < r->noffcpu; i++) {
		size_t n = stack_frames(r, &r->offcpu[i].key, ids);
		any_kernel |= r->offcpu[i].key.kstack >= 0;
		agg_add(&a, (int)r->offcpu[i].key.tgid, ids, n, (double)r->offcpu[i].value, -1);
	}
	agg_emit(&a, "offcpu");
	for (size_t i = 0; i < r->nsys; i++) {
		int id = out_syscall_frame_id(r->sys[i].key.nr);
		agg_add(&a, (int)r->sys[i].key.tgid, &id, 1, (double)r->sys[i].val.calls, (double)r->sys[i].val.total_ns);
	}
	agg_emit(&a, "syscalls");

	const char *axes[P__COUNT];
	double samples[P__COUNT], lost[P__COUNT];
	size_t na = 0;
	static const int slots[P__COUNT][2] = {
		{ STAT_CPU_SAMPLES, STAT_CPU_LOST }, { STAT_OFFCPU_EVENTS, STAT_OFFCPU_LOST }, { STAT_SYS_EVENTS, STAT_SYS_LOST }
	};
	for (int i = 0; i < P__COUNT; i++) {
		if (!p->attached[i])
			continue;
		axes[na] = probe_name(i);
		samples[na] = (double)r->stat[slots[i][0]];
		lost[na] = (double)r->stat[slots[i][1]];
		na++;
	}
	const char *notes[2];
	size_t nn = 0;
	if (any_kernel && sym_kernel_hidden())
		notes[nn++] = "kernel frames unsymbolized: /proc/kallsyms addresses are hidden from ptop (kptr_restrict / "
			      "perf_event_paranoid; CAP_SYSLOG is not one of ptop's capabilities)";
	out_summary(axes, samples, lost, na, partial_reason != NULL, partial_reason, ended_ms, measured, notes, nn);
}
