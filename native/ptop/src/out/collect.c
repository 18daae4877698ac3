/* The collect stage (report.h): the maps at the end of the window, then the unwinder's aggregate. */
#include "report.h"
#include "ptop.skel.h"
#include "strtab.h"
#include "unwind.h"
#include "unwind_wire.h"
#include "hotspot.h"
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void load_stack(struct report *r, struct probes *p, int32_t id)
{
	if (id < 0 || id >= PTOP_MAX_STACKS || r->kstacks[id])
		return;
	uint64_t *ips = xcalloc(PTOP_MAX_STACK_DEPTH, sizeof(uint64_t));
	uint32_t key = (uint32_t)id;
	if (bpf_map__lookup_elem(p->skel->maps.stacks, &key, sizeof(key), ips, PTOP_MAX_STACK_DEPTH * sizeof(uint64_t), 0)) {
		free(ips);
		return;
	}
	r->kstacks[id] = ips;
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
	struct stack_count **arr = &r->stacks[h->axis]; /* an unwinding probe's number (unwind_wire.c checks it) */
	size_t *n = &r->nstacks[h->axis];
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
	sc->in_execve = h->in_execve != 0;
	sc->gen = h->gen;
	sc->pcs = xcalloc(h->npcs ? h->npcs : 1, sizeof(uint64_t));
	memcpy(sc->pcs, pcs, h->npcs * sizeof(uint64_t));
	if (h->interp_len) {
		sc->interp = xcalloc(h->interp_len, 1);
		memcpy(sc->interp, interp, h->interp_len);
		sc->interp_len = h->interp_len;
	}
	load_stack(r, c->p, h->kstack);
}

/* A Java method's name as the unwinder read it during the window (hotspot.h). */
static void on_name(uint32_t tgid, const struct unwind_name *nm, const char *text, void *arg)
{
	(void)arg;
	hs_learn_name((int)tgid, nm->addr, nm->stamp, text, nm->len);
}

int report_collect_unwound(struct report *r, struct probes *p)
{
	struct collect_ctx c = { r, p, { 0 } };
	return unwind_collect(on_unwound, on_name, &c, &r->unwound);
}

void report_collect(struct report *r, struct probes *p)
{
	memset(r, 0, sizeof(*r));
	r->kstacks = xcalloc(PTOP_MAX_STACKS, sizeof(uint64_t *));
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
	for (int i = 0; i < P__COUNT; i++)
		r->ran[i] = p->skel->bss->ran[i] != 0;
}

