#include "symbolize.h"
#include "demangle.h"
#include "elfsym.h"
#include "execmaps.h"
#include "gen_pick.h"
#include "kallsyms.h"
#include "perfmap.h"
#include "proctext.h"
#include "rootfs.h"
#include "strtab.h"
#include "vdso.h"
#include <fcntl.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

enum { MOD_UNLOADED = 0, MOD_OK, MOD_FAILED };

struct module {
	char *path;     /* as the target sees it */
	int fd;         /* opened while privileged */
	int rootfd;     /* target's root (O_PATH) for debug-file lookups */
	int state;
	struct elfsym es;
};

struct mapping {
	uint64_t start, end, off;
	int mod; /* index in modules, -1 for anonymous memory (JIT code lives there) */
	bool vdso; /* the kernel's [vdso] (clock_gettime & co.): named as such, not as unknown JIT */
};

/* One image of a process: the executable mappings of one exec generation (bpf/ptop.h). Two images
 * may lie at the same addresses (a non-PIE binary exec'd into another, or address randomization
 * off): each keeps its own table, so neither's samples are named from the other. */
struct image {
	uint32_t gen;
	struct mapping *maps; /* sorted by start, no two overlapping */
	size_t n;
};

struct proc_syms {
	int pid;
	struct image *images; /* by generation, ascending */
	size_t nimages;
	uint32_t gen;         /* the generation of the last prepare */
	int perfmap_fd;
	int pm_state;
	struct perfmap pm;
	bool prepared;
	uint64_t exec_fingerprint; /* of the executable lines of maps when last prepared */
};

static struct module *modules;
static size_t nmodules;
static struct strmap module_index; /* "dev:inode:path" -> module */
static struct proc_syms *procs;
static size_t nprocs;
static struct strmap proc_index; /* "pid" -> index in procs: every target is looked up every scan */
static int kallsyms_fd = -1;
static struct kallsyms ksyms;

static struct proc_syms *find_proc(int pid)
{
	char key[16];
	snprintf(key, sizeof(key), "%d", pid);
	int i = strmap_get(&proc_index, key);
	return i >= 0 ? &procs[i] : NULL;
}

static int module_for(int pid, int rootfd, const char *path, unsigned maj, unsigned min, uint64_t inode, uint64_t start, uint64_t end)
{
	char key[4200];
	snprintf(key, sizeof(key), "%x:%x:%" PRIu64 ":%s", maj, min, inode, path);
	int idx = strmap_get(&module_index, key);
	if (idx >= 0)
		return idx;
	int fd = rootfs_open_file(rootfd, path, 0);
	/* The path must still name the mapped file (same device and inode): otherwise the target may
	 * have put something else there, e.g. a symlink to a file only ptop's privileges can read. */
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) || st.st_ino != inode ||
			major(st.st_dev) != maj || minor(st.st_dev) != min)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		/* Replaced, deleted or moved on disk: the exact mapped file is still reachable here. */
		char mf[96];
		snprintf(mf, sizeof(mf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, start, end);
		fd = open(mf, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	}
	modules = xrealloc(modules, nmodules + 1, sizeof(*modules));
	struct module *m = &modules[nmodules];
	memset(m, 0, sizeof(*m));
	m->path = xstrndup(path, strlen(path));
	m->fd = fd;
	m->rootfd = rootfd >= 0 ? fcntl(rootfd, F_DUPFD_CLOEXEC, 0) : -1;
	m->state = fd < 0 ? MOD_FAILED : MOD_UNLOADED;
	strmap_put(&module_index, key, (int)nmodules);
	return (int)nmodules++;
}

/* Effective uid of pid, or -1. */
static long long proc_euid(int pid)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/status", pid);
	size_t len;
	char *st = read_proc_file(p, 16384, &len);
	long long euid = st ? proctext_euid(st, len) : -1;
	free(st);
	return euid;
}

/* One executable mapping of /proc/PID/maps into the process's table (proctext_maps_foreach). */
struct maps_ctx {
	struct mapping *maps; /* as read, in the order of maps */
	size_t n;
	int pid, rootfd;
	size_t cap;
};

static void add_mapping(const struct maps_line *l, void *arg)
{
	struct maps_ctx *c = arg;
	if (l->perms[2] != 'x')
		return;
	/* A path is a path up to the end of its line; one holding a NUL or past PATH_MAX is no file. */
	char path[4096];
	bool is_file = l->inode != 0 && l->path_len > 0 && l->path[0] == '/' && l->path_len < sizeof(path) &&
		       !memchr(l->path, 0, l->path_len);
	int mod = -1;
	if (is_file) {
		memcpy(path, l->path, l->path_len);
		path[l->path_len] = 0;
		mod = module_for(c->pid, c->rootfd, path, l->dev_major, l->dev_minor, l->inode, l->start, l->end);
	}
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->maps = xrealloc(c->maps, c->cap, sizeof(*c->maps));
	}
	bool vdso = l->path_len == 6 && memcmp(l->path, "[vdso]", 6) == 0;
	c->maps[c->n++] = (struct mapping){ l->start, l->end, l->off, mod, vdso };
}

static int by_start(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void sort_by_start(struct mapping *m, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (m[i].start < m[i - 1].start) {
			qsort(m, n, sizeof(*m), by_start);
			return;
		}
}

static bool same_mapping(const struct mapping *a, const struct mapping *b)
{
	return a->start == b->start && a->end == b->end && a->off == b->off && a->mod == b->mod;
}

/* cur (the mappings now, sorted, not overlapping) and old (the table before, sorted) -> the new
 * table: cur, plus the old mappings no current one overlaps, sorted by start; in one pass over
 * each. *changed: some current mapping was not in the table before. */
static struct mapping *merge_mappings(const struct mapping *cur, size_t ncur, const struct mapping *old, size_t nold,
				      size_t *nout, bool *changed)
{
	*changed = false;
	for (size_t i = 0, j = 0; i < ncur && !*changed; i++) {
		while (j < nold && old[j].start < cur[i].start)
			j++;
		bool seen = false;
		for (size_t k = j; k < nold && old[k].start == cur[i].start && !seen; k++)
			seen = same_mapping(&old[k], &cur[i]);
		*changed = !seen;
	}
	struct mapping *out = xcalloc(ncur + nold ? ncur + nold : 1, sizeof(*out));
	size_t n = 0, i = 0, c = 0;
	for (size_t j = 0; j < nold; j++) {
		/* the current mappings that end before this old one starts cannot overlap it, nor any later one */
		while (i < ncur && cur[i].end <= old[j].start)
			i++;
		if (i < ncur && cur[i].start < old[j].end)
			continue; /* covered: the current mapping names that range now */
		while (c < ncur && cur[c].start <= old[j].start)
			out[n++] = cur[c++];
		out[n++] = old[j];
	}
	while (c < ncur)
		out[n++] = cur[c++];
	*nout = n;
	return out;
}

static bool prepare(int pid, int nspid, uint32_t *gen, bool skip_unchanged);
static uint32_t (*gen_of)(int pid, void *arg);
static void *gen_arg;

void sym_gen_source(uint32_t (*fn)(int pid, void *arg), void *arg)
{
	gen_of = fn;
	gen_arg = arg;
}

bool sym_prepare_process(int pid, int nspid, uint32_t *gen)
{
	return prepare(pid, nspid, gen, false);
}

bool sym_refresh_process(int pid, int nspid, uint32_t *gen)
{
	return prepare(pid, nspid, gen, true);
}

/* The image of generation gen, created (empty) when create and there is none. */
static struct image *image_of(struct proc_syms *ps, uint32_t gen, bool create)
{
	size_t i = 0;
	while (i < ps->nimages && ps->images[i].gen < gen)
		i++;
	if (i < ps->nimages && ps->images[i].gen == gen)
		return &ps->images[i];
	if (!create)
		return NULL;
	ps->images = xrealloc(ps->images, ps->nimages + 1, sizeof(*ps->images));
	memmove(&ps->images[i + 1], &ps->images[i], (ps->nimages - i) * sizeof(*ps->images));
	ps->nimages++;
	ps->images[i] = (struct image){ gen, NULL, 0 };
	return &ps->images[i];
}

/* The image that names a sample of generation gen (gen_pick.h), NULL when none was read. */
static const struct image *image_for(const struct proc_syms *ps, uint32_t gen)
{
	const struct image *best = NULL;
	for (size_t i = 0; i < ps->nimages; i++)
		if (gen_better(gen, ps->images[i].gen, best != NULL, best ? best->gen : 0))
			best = &ps->images[i];
	return best;
}

/* pid's maps, read as the image of *gen: the generation is read before and after; an execve in
 * between (a new generation) has the maps read again, as the new image's. Not caught: a read
 * inside the exec's own window, after its new mappings are in place and before its tracepoint
 * (exec.bpf.c) counts the generation, names them as the old image's. */
static char *read_maps_of_gen(int pid, uint32_t *gen, size_t *len)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/maps", pid);
	char *maps = NULL;
	for (int tries = 0; tries < 2; tries++) {
		free(maps);
		maps = read_proc_file(p, 32u << 20, len);
		uint32_t after = gen_of ? gen_of(pid, gen_arg) : 0;
		if (after == *gen)
			break;
		*gen = after;
	}
	return maps;
}

static bool prepare(int pid, int nspid, uint32_t *genp, bool skip_unchanged)
{
	struct proc_syms *ps = find_proc(pid);
	uint32_t gen = gen_of ? gen_of(pid, gen_arg) : 0;
	/* The rescans (every 250 ms) ask again for every target: when its executable mappings are
	 * the ones already prepared, there is nothing to read, open, compare or pass on. Taken before
	 * the maps are read: a change in between is seen by the next call. */
	uint64_t fp;
	bool queried = execmaps_fingerprint(pid, &fp) == 0;
	*genp = gen;
	bool same = ps && ps->prepared && ps->gen == gen; /* an exec to the same layout is a new image too */
	if (queried && skip_unchanged && same && fp == ps->exec_fingerprint)
		return false;
	size_t mapslen = 0;
	char *maps = read_maps_of_gen(pid, &gen, &mapslen);
	*genp = gen;
	same = same && ps->gen == gen;
	if (maps && !queried) { /* an older kernel: the same fingerprint from the maps text */
		fp = execmaps_fingerprint_text(maps, mapslen);
		if (skip_unchanged && same && fp == ps->exec_fingerprint) {
			free(maps);
			return false;
		}
	}
	if (ps && !maps)
		return false; /* exited since it was first prepared: the mappings seen then still name its frames */
	if (!ps) {
		procs = xrealloc(procs, nprocs + 1, sizeof(*procs));
		ps = &procs[nprocs++];
		memset(ps, 0, sizeof(*ps));
		ps->pid = pid;
		ps->perfmap_fd = -1;
		char key[16];
		snprintf(key, sizeof(key), "%d", pid);
		strmap_put(&proc_index, key, (int)(nprocs - 1));
	}
	if (!maps)
		return false; /* exited before it could be prepared: its frames stay unsymbolized */
	ps->prepared = true;
	ps->exec_fingerprint = fp;
	ps->gen = gen;
	/* Prepared again (during and at the end of the window): within one image (exec generation),
	 * the current mappings replace those they overlap, so libraries loaded since are known; files
	 * already open are not reopened. The mappings seen before stay where nothing new covers their
	 * range: samples taken before a dlclose are symbolized at the end of the window, when only this
	 * table is left to name them. A new image starts a table of its own. */
	struct image *im = image_of(ps, gen, true);
	struct mapping *old = im->maps;
	size_t nold = im->n;
	struct maps_ctx ctx = { NULL, 0, pid, rootfs_open_root(pid), 0 };
	proctext_maps_foreach(maps, mapslen, add_mapping, &ctx);
	free(maps);
	int rootfd = ctx.rootfd;
	sort_by_start(ctx.maps, ctx.n); /* maps lists them by address already */
	bool changed;
	im->maps = merge_mappings(ctx.maps, ctx.n, old, nold, &im->n, &changed);
	free(ctx.maps);
	free(old);
	if (ps->perfmap_fd >= 0) {
		close(ps->perfmap_fd); /* reopened below: the runtime appends to it during the window */
		ps->perfmap_fd = -1;
	}
	char pm[64];
	snprintf(pm, sizeof(pm), "/tmp/perf-%d.map", nspid);
	/* The runtime writes its perf map itself: a symlink, or a file owned by anyone but the
	 * target's uid, is not its perf map (and could be a file only ptop's privileges can read). */
	ps->perfmap_fd = rootfs_open_file_nofollow(rootfd, pm, PERFMAP_MAX_BYTES);
	struct stat st;
	if (ps->perfmap_fd >= 0 && (fstat(ps->perfmap_fd, &st) || (long long)st.st_uid != proc_euid(pid))) {
		close(ps->perfmap_fd);
		ps->perfmap_fd = -1;
	}
	if (rootfd >= 0)
		close(rootfd);
	return changed;
}

void sym_prepare_kernel(void)
{
	if (kallsyms_fd < 0)
		kallsyms_fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
}

static int open_debug_candidate(int rootfd, const char *path)
{
	int fd = rootfs_open_file(rootfd, path, 0);
	if (fd < 0) /* the host's debug files (ptop's own root) */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	return fd;
}

/* Stripped binary: look for its symbols by build-id, then by .gnu_debuglink, under /usr/lib/debug. */
static void load_debug_file(struct module *m)
{
	char cand[4][4400];
	int nc = 0;
	if (strlen(m->es.build_id) > 2)
		snprintf(cand[nc++], sizeof(cand[0]), "/usr/lib/debug/.build-id/%.2s/%s.debug", m->es.build_id, m->es.build_id + 2);
	if (m->es.debuglink[0]) {
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s", m->path);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		snprintf(cand[nc++], sizeof(cand[0]), "/usr/lib/debug%s/%s", dir, m->es.debuglink);
		snprintf(cand[nc++], sizeof(cand[0]), "%s/.debug/%s", dir, m->es.debuglink);
		snprintf(cand[nc++], sizeof(cand[0]), "%s/%s", dir, m->es.debuglink);
	}
	for (int i = 0; i < nc; i++) {
		if (strcmp(cand[i], m->path) == 0)
			continue;
		int fd = open_debug_candidate(m->rootfd, cand[i]);
		if (fd < 0)
			continue;
		int rc = elfsym_add_debug_fd(&m->es, fd);
		close(fd);
		if (rc == 0)
			return;
	}
}

static struct module *load_module(int idx)
{
	if (idx < 0)
		return NULL;
	struct module *m = &modules[idx];
	if (m->state == MOD_UNLOADED) {
		if (elfsym_from_fd(m->fd, &m->es) == 0) {
			if (!m->es.has_symtab)
				load_debug_file(m);
			elfsym_finish(&m->es);
			m->state = MOD_OK;
		} else {
			m->state = MOD_FAILED;
		}
		close(m->fd);
		m->fd = -1;
	}
	return m->state == MOD_OK ? m : NULL;
}

static const char *module_name(int idx)
{
	return idx >= 0 ? modules[idx].path : NULL;
}

static const struct mapping *find_mapping(const struct image *im, uint64_t addr)
{
	for (size_t i = 0; im && i < im->n; i++)
		if (addr >= im->maps[i].start && addr < im->maps[i].end)
			return &im->maps[i];
	return NULL;
}

void sym_foreach_mapping(int pid, uint32_t gen,
			 void (*fn)(int pid, uint64_t start, uint64_t end, uint64_t off, int fd, bool vdso, void *arg),
			 void *arg)
{
	struct proc_syms *ps = find_proc(pid);
	const struct image *im = ps ? image_of(ps, gen, false) : NULL;
	for (size_t i = 0; im && i < im->n; i++) {
		const struct mapping *m = &im->maps[i];
		int fd = m->mod >= 0 ? modules[m->mod].fd : m->vdso ? vdso_fd(m->end - m->start) : -1;
		fn(pid, m->start, m->end, m->off, fd, m->vdso, arg);
	}
}

int sym_in_mapping(int pid, uint32_t gen, uint64_t addr)
{
	const struct proc_syms *ps = find_proc(pid);
	const struct image *im = ps ? image_for(ps, gen) : NULL;
	if (!im || !im->maps)
		return -1;
	return find_mapping(im, addr) != NULL;
}

/* "libfoo.so.1+0x1234": the identity of code without a symbol, stable across processes (ASLR
 * moves the mapping, not the offset). The string lives as long as ptop (frame ids are interned). */
static const char *module_offset_name(const char *module, uint64_t off)
{
	const char *base = strrchr(module, '/');
	base = base ? base + 1 : module;
	char buf[320];
	snprintf(buf, sizeof(buf), "%.255s+0x%" PRIx64, base, off);
	return xstrndup(buf, strlen(buf));
}

void sym_resolve_user(int pid, uint32_t gen, uint64_t addr, struct frame_info *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = "unknown";
	out->address = addr;
	struct proc_syms *ps = find_proc(pid);
	if (!ps) {
		/* Never prepared (it exited first): no mapping is known, so no identity either. An
		 * absolute address differs in every process and would read as a function of its own. */
		out->function = "[unknown]";
		return;
	}
	const struct mapping *mp = find_mapping(image_for(ps, gen), addr);
	if (mp && mp->mod >= 0) {
		out->kind = "native";
		out->module = module_name(mp->mod);
		/* Until the ELF says otherwise: the offset in the file. */
		out->address = addr - mp->start + mp->off;
		struct module *m = load_module(mp->mod);
		if (m) {
			out->build_id = m->es.build_id[0] ? m->es.build_id : NULL;
			uint64_t vaddr;
			if (elfsym_offset_to_vaddr(&m->es, addr - mp->start + mp->off, &vaddr) == 0) {
				out->address = vaddr;
				out->function = demangle(elfsym_lookup(&m->es, vaddr));
			}
		}
		if (!out->function)
			out->function = module_offset_name(out->module, out->address);
		return;
	}
	/* Anonymous executable memory, or not mapped any more: JIT code, described by the perf map. */
	if (ps->pm_state == 0) {
		ps->pm_state = -1;
		if (ps->perfmap_fd >= 0) {
			size_t len;
			char *buf = read_fd_all(ps->perfmap_fd, PERFMAP_MAX_BYTES, &len);
			if (buf) {
				perfmap_parse(buf, len, &ps->pm);
				ps->pm_state = 1;
				free(buf);
			}
			close(ps->perfmap_fd);
			ps->perfmap_fd = -1;
		}
	}
	if (ps->pm_state == 1) {
		const char *name = perfmap_lookup(&ps->pm, addr);
		if (name) {
			out->function = name;
			out->module = "[jit]";
			out->kind = "jit";
			return;
		}
	}
	/* Anonymous code without a perf-map entry (or a mapping gone by the end): one frame per
	 * kind of region, never the absolute address. */
	out->function = mp && mp->vdso ? "[vdso]" : "[unknown]";
	out->module = mp ? (mp->vdso ? "[vdso]" : "[anon]") : NULL;
}

void sym_resolve_kernel(uint64_t addr, struct frame_info *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = "kernel";
	out->module = "[kernel.kallsyms]";
	out->address = addr;
	if (!ksyms.loaded && kallsyms_fd >= 0) {
		kallsyms_load_fd(kallsyms_fd, &ksyms);
		close(kallsyms_fd);
		kallsyms_fd = -1;
	}
	out->function = kallsyms_lookup(&ksyms, addr);
}

bool sym_kernel_hidden(void)
{
	return !ksyms.loaded || ksyms.hidden;
}
