#include "hs_child.h"
#include "hs_namecache.h"
#include "monoclock.h"
#include "target_mem.h"
#include <linux/types.h>
#include "interp_section.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RETRY_SAMPLES 256
#define MAX_TRIES 32

struct hs_proc {
	int pid;
	int libfd, memfd;
	uint64_t start, off;
	bool tried, ok;
	unsigned tries, since_try; /* a VM not yet initialised (its code cache unset) is read again later */
	struct hs_vm vm;
	struct hs_cache *cache; /* NULL when out of memory: walked without */
	struct hs_namecache *names; /* the methods named during the window */
};

static struct hs_proc *procs;
static size_t nprocs;

static struct hs_proc *get(int pid, bool create)
{
	for (size_t i = 0; i < nprocs; i++)
		if (procs[i].pid == pid)
			return &procs[i];
	if (!create)
		return NULL;
	struct hs_proc *v = realloc(procs, (nprocs + 1) * sizeof(*procs));
	if (!v)
		return NULL;
	procs = v;
	procs[nprocs] = (struct hs_proc){ .pid = pid, .libfd = -1, .memfd = -1 };
	return &procs[nprocs++];
}

static void take(int *slot, int fd)
{
	if (*slot >= 0)
		close(*slot);
	*slot = fd;
}

void hs_child_lib(int pid, int fd, uint64_t start, uint64_t off)
{
	struct hs_proc *p = get(pid, true);
	if (!p) {
		if (fd >= 0)
			close(fd);
		return;
	}
	take(&p->libfd, fd);
	p->start = start;
	p->off = off;
	p->tried = false;
	p->tries = 0;
}

void hs_child_mem(int pid, int fd)
{
	struct hs_proc *p = get(pid, true);
	if (!p) {
		if (fd >= 0)
			close(fd);
		return;
	}
	take(&p->memfd, fd);
	p->tried = false;
	p->tries = 0;
}

void hs_child_forget(int pid)
{
	for (size_t i = 0; i < nprocs; i++)
		if (procs[i].pid == pid) {
			take(&procs[i].libfd, -1);
			take(&procs[i].memfd, -1);
			free(procs[i].cache);
			hs_namecache_free(procs[i].names);
			procs[i] = procs[--nprocs];
			return;
		}
}

void hs_child_reset(void)
{
	while (nprocs)
		hs_child_forget(procs[0].pid);
	free(procs);
	procs = NULL;
}

struct hs_proc *hs_child_proc(int pid)
{
	struct hs_proc *p = get(pid, false);
	if (!p || p->libfd < 0 || p->memfd < 0)
		return NULL;
	/* A JVM found just after its start may not have set up its code cache yet: read again every
	 * RETRY_SAMPLES of its samples, at most MAX_TRIES times. */
	if (!p->tried || (!p->ok && ++p->since_try >= RETRY_SAMPLES && p->tries < MAX_TRIES)) {
		p->tried = true;
		p->since_try = 0;
		p->tries++;
		struct hs_elf_syms syms;
		char why[160];
		p->ok = !hs_elf_find_fd(p->libfd, p->start, p->off, &syms) &&
			!hs_vm_open(target_mem_read, &p->memfd, &syms, &p->vm, why, sizeof(why));
		if (p->ok && !p->cache)
			p->cache = calloc(1, sizeof(*p->cache));
		if (p->ok && getenv("PTOP_DEBUG"))
			fprintf(stderr, "ptop: unwinder: JVM %d: interpreted frames checked by bytecode pointer: %s, by class mirror: %s\n",
				pid, p->vm.fr_bcp ? "yes" : "no", p->vm.fr_mirror ? "yes" : "no");
	}
	return p->ok ? p : NULL;
}

bool hs_child_in_code(const struct hs_proc *p, uint64_t pc)
{
	return p && hs_in_code(&p->vm, pc);
}

bool hs_child_walk(struct hs_proc *p, struct hs_regs *r, bool leaf, uint64_t sample_ns, uint64_t *pcs, uint32_t *npcs,
		   uint32_t cap, hs_stack_fn st, void *st_ctx, struct hs_walk_out *out)
{
	struct hs_mem m = { &p->vm, target_mem_read, &p->memfd, st, st_ctx, p->cache, HS_ARM64, sample_ns, mono_ns() };
	for (;;) {
		if (*npcs == cap || out->n >= HS_MAX_RECORDS - 1) {
			out->rec[out->n++] = (struct hs_record){ 0, (uint16_t)*npcs, HS_R_LOST, { HS_LOST_DEPTH } };
			return false;
		}
		uint32_t idx = *npcs, why = 0;
		pcs[(*npcs)++] = leaf ? r->pc : r->pc - 1;
		/* one record is kept free for the reason the walk stops */
		size_t before = out->n;
		int rc = hs_step(&m, r, leaf, idx, out->rec, HS_MAX_RECORDS - 1, &out->n, &why);
		/* Named now, while its class is loaded, once per Method* and stamp (README "Java frames"):
		 * a compiled frame whose code was in place before the sample, an interpreted one whose class
		 * mirror checked out. Any other's Method* may be another method's since the sample, the same
		 * shape at the same addresses: its name is read at the window's end, as its stamp must read. */
		for (size_t i = before; i < out->n; i++) {
			struct hs_record *rec = &out->rec[i];
			bool at_sample = rec->flags & HS_R_AT_SAMPLE;
			rec->flags &= (uint16_t)~HS_R_AT_SAMPLE;
			if (rec->stamp && !(rec->flags & (HS_R_STUB | HS_R_LOST)) &&
			    (rec->flags & HS_R_INTERPRETED ? p->vm.fr_mirror != 0 : at_sample))
				hs_namecache_note(&p->names, &m, rec->addr, rec->stamp);
		}
		if (rc == HS_STEP_FAIL) {
			out->rec[out->n++] = (struct hs_record){ 0, (uint16_t)idx, HS_R_LOST, { why } };
			return false;
		}
		if (rc == HS_STEP_NATIVE)
			return true;
		leaf = false;
	}
}

struct each_ctx {
	int pid;
	hs_child_name_fn fn;
	void *arg;
};

static void each_name(uint64_t method, uint32_t stamp, const char *name, size_t len, void *arg)
{
	struct each_ctx *e = arg;
	e->fn(e->pid, method, stamp, name, len, e->arg);
}

void hs_child_names(hs_child_name_fn fn, void *arg)
{
	for (size_t i = 0; i < nprocs; i++) {
		struct each_ctx e = { procs[i].pid, fn, arg };
		hs_namecache_each(procs[i].names, each_name, &e);
	}
}

size_t hs_child_section(const struct hs_walk_out *out, uint8_t *buf, size_t cap)
{
	struct interp_section_hdr h = { INTERP_HOTSPOT, (__u16)out->n,
					(__u32)(sizeof(h) + out->n * sizeof(struct hs_record)) };
	if (out->n == 0 || h.len > cap)
		return 0;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), out->rec, out->n * sizeof(struct hs_record));
	return h.len;
}
