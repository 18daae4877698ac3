#include "alloc.h"
#include "allocelf.h"
#include <linux/types.h>
#include "ptop.h"
#include "ptop.skel.h"
#include "proctext.h"
#include "elfhelper.h"
#include "rootfs.h"
#include "strtab.h"
#include "uprobe_link.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct held_link *links;
static size_t nlinks, links_cap, total; /* total: attached over the run, kept after detaching */
static char why_none[512] = "no target process was found to probe";
static uint32_t functions_seen; /* bit per alloc_fn attached somewhere */

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

bool alloc_load(struct probes *p, int probe, bool want)
{
	bool load = want && uprobes_supported(p->reason[probe], sizeof(p->reason[0]));
	probes_load_programs(p, probe, load);
	if (load && uprobe_link_supported()) /* detached in one grace period, not one per uprobe */
		bpf_program__set_expected_attach_type(p->skel->progs.on_alloc, PTOP_BPF_TRACE_UPROBE_MULTI);
	return load;
}

/* Loaded here, attached per target process (alloc_attach); it stays "attached" only if at least
 * one uprobe is in place when the window starts (main.c). */
void alloc_attach_probe(struct probes *p, int probe, int frequency_hz)
{
	p->attached[probe] = alloc_setup(p, PTOP_ALLOC_PERIOD, p->reason[probe], sizeof(p->reason[0])) == 0;
}

int alloc_setup(struct probes *p, uint64_t period, char *err, size_t len)
{
	/* Quantiles of an exponential distribution with mean `period`, at the middle of 1024 equal
	 * slices, scaled so that their mean is exactly `period`: the BPF side draws one at random. */
	double q[PTOP_ALLOC_TABLE], sum = 0;
	for (int i = 0; i < PTOP_ALLOC_TABLE; i++) {
		q[i] = -log(1.0 - (i + 0.5) / PTOP_ALLOC_TABLE);
		sum += q[i];
	}
	for (uint32_t i = 0; i < PTOP_ALLOC_TABLE; i++) {
		uint64_t v = (uint64_t)llround(q[i] * (double)period * PTOP_ALLOC_TABLE / sum);
		if (v == 0)
			v = 1;
		if (bpf_map__update_elem(p->skel->maps.alloc_intervals, &i, sizeof(i), &v, sizeof(v), BPF_ANY)) {
			snprintf(err, len, "cannot fill the sampling interval table: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* By name from /proc/PID/maps (kernel text; the parent parses nothing of the files): a libc
 * (glibc libc.so.6, musl ld-musl-ARCH.so.1 / libc.musl-ARCH.so.1 / libc.so) and the executable. */
static bool is_libc(const char *base)
{
	return !strncmp(base, "libc.so", 7) || !strncmp(base, "libc-", 5) || !strncmp(base, "ld-musl-", 8) ||
	       !strncmp(base, "libc.musl-", 10);
}

/* Answers per file (device, inode, size, mtime): the workers of one service share their libc and
 * executable, and the helper reads a whole file for each question. fstat reads nothing the
 * target wrote into the file. */
#define ANSWERS_MAX 64
static struct answer {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	struct alloc_elf_info info;
} answers[ANSWERS_MAX];
static size_t nanswers;

static int lookup(int fd, struct alloc_elf_info *out)
{
	struct stat st;
	bool known = fstat(fd, &st) == 0;
	for (size_t i = 0; known && i < nanswers; i++)
		if (answers[i].dev == st.st_dev && answers[i].ino == st.st_ino && answers[i].size == st.st_size &&
		    answers[i].mtime.tv_sec == st.st_mtim.tv_sec && answers[i].mtime.tv_nsec == st.st_mtim.tv_nsec) {
			*out = answers[i].info;
			return 0;
		}
	if (elfhelper_alloc(fd, out))
		return -1;
	if (known && nanswers < ANSWERS_MAX)
		answers[nanswers++] = (struct answer){ st.st_dev, st.st_ino, st.st_size, st.st_mtim, *out };
	return 0;
}

static void hold(struct bpf_link *l, int fd)
{
	if (nlinks == links_cap) {
		links_cap = links_cap ? links_cap * 2 : 64;
		links = xrealloc(links, links_cap, sizeof(*links));
	}
	links[nlinks++] = (struct held_link){ l, fd };
}

/* The program was loaded for multi-uprobe links where the kernel has them (probes.c). */
static bool by_link(struct probes *p)
{
	return bpf_program__expected_attach_type(p->skel->progs.on_alloc) == PTOP_BPF_TRACE_UPROBE_MULTI;
}

/* One link for all of the file's entry points. Returns how many of them are attached (all or none),
 * the cookies[] in front being those. pid > 0: the kernel puts the breakpoints in that process only. */
static int attach_link(struct probes *p, int pid, const char *mf, const char *base, const uint64_t *offsets,
		       const uint64_t *cookies, uint32_t n)
{
	if (n == 0)
		return 0;
	int fd = uprobe_link_attach(bpf_program__fd(p->skel->progs.on_alloc), pid, mf, offsets, cookies, n);
	if (fd < 0) {
		snprintf(why_none, sizeof(why_none), "pid %d: attaching the uprobes to %s failed: %s", pid, base,
			 strerror(errno));
		return 0;
	}
	hold(NULL, fd);
	total += n;
	return (int)n;
}

/* One perf-event uprobe per entry point (kernels before multi-uprobe links); the attached ones'
 * cookies are moved to the front. */
static int attach_perf(struct probes *p, int pid, const char *mf, const char *base, const uint64_t *offsets,
		       uint64_t *cookies, uint32_t n)
{
	int attached = 0;
	for (uint32_t i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = cookies[i]);
		struct bpf_link *l = bpf_program__attach_uprobe_opts(p->skel->progs.on_alloc, pid, mf, (size_t)offsets[i], &opts);
		if (!l) {
			snprintf(why_none, sizeof(why_none), "pid %d: attaching a uprobe to %s in %s failed: %s", pid,
				 alloc_fn_names[cookies[i]], base, strerror(errno));
			continue;
		}
		hold(l, -1);
		total++;
		cookies[attached++] = cookies[i];
	}
	return attached;
}

static int attach_file(struct probes *p, int pid, uint64_t start, uint64_t end, const char *base)
{
	char mf[96];
	/* map_files: exactly the inode that is mapped, reached through the process's own root. */
	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, start, end);
	int fd = open(mf, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why_none, sizeof(why_none), "pid %d: cannot open its %s: %s", pid, base, strerror(errno));
		return 0;
	}
	struct alloc_elf_info info;
	int asked = lookup(fd, &info);
	close(fd);
	if (asked) {
		snprintf(why_none, sizeof(why_none), "the unprivileged ELF helper is not running: allocation entry points "
			 "cannot be looked up");
		return 0;
	}
	uint64_t offsets[AF__COUNT], cookies[AF__COUNT];
	uint32_t n = 0;
	for (int f = 0; f < AF__COUNT; f++)
		if (info.found & (1u << f)) {
			offsets[n] = info.offset[f];
			cookies[n++] = (uint64_t)f;
		}
	int attached = by_link(p) ? attach_link(p, pid, mf, base, offsets, cookies, n)
				  : attach_perf(p, pid, mf, base, offsets, cookies, n);
	for (int i = 0; i < attached; i++)
		functions_seen |= 1u << cookies[i];
	if (!info.found)
		snprintf(why_none, sizeof(why_none), "pid %d: %s has no symbol (.symtab, .dynsym, Go pclntab) for malloc nor runtime.mallocgc", pid, base);
	return attached;
}

/* Processes with no uprobe yet: one that has just exec'd may not have mapped its libc when it is
 * first seen (ld.so is still loading it), so it is looked at again on the next rescans. The list
 * grows as needed up to PTOP_MAX_TARGETS (the BPF target map's size: no more processes can be
 * targets at once); a process that cannot be queued, that exits, or that still has no entry point
 * after PENDING_TRIES scans is counted, and the summary says how many were not covered. */
#define PENDING_MAX PTOP_MAX_TARGETS
#define PENDING_TRIES 8
static struct pending {
	int pid, tries;
} *pending;
static size_t npending, pending_cap;
static struct alloc_coverage coverage;

static int attach_now(struct probes *p, int pid, bool *gone);

int alloc_attach(struct probes *p, int pid)
{
	bool gone;
	int n = attach_now(p, pid, &gone);
	if (!p->skel || !p->attached[P_ALLOC])
		return n;
	coverage.processes++;
	if (n > 0)
		coverage.covered++;
	else if (gone)
		coverage.gone++;
	else if (npending == PENDING_MAX)
		coverage.not_queued++;
	else {
		if (npending == pending_cap) {
			pending_cap = pending_cap ? pending_cap * 2 : 64;
			pending = xrealloc(pending, pending_cap, sizeof(*pending));
		}
		pending[npending++] = (struct pending){ pid, 1 };
	}
	return n;
}

bool alloc_settle(struct probes *p, int probe)
{
	/* alloc counts as attached only with a uprobe in some target (processes found later get theirs too). */
	for (int i = 0; i < 10 && alloc_uprobes() == 0 && alloc_retry(p) > 0; i++) {
		struct timespec ts = { 0, 100000000 };
		nanosleep(&ts, NULL);
	}
	if (alloc_uprobes() > 0)
		return true;
	snprintf(p->reason[probe], sizeof(p->reason[0]), "%s", alloc_why_none());
	return false;
}

size_t alloc_retry(struct probes *p)
{
	for (size_t i = 0; i < npending;) {
		bool gone;
		if (attach_now(p, pending[i].pid, &gone) > 0)
			coverage.covered++;
		else if (gone)
			coverage.gone++;
		else if (++pending[i].tries >= PENDING_TRIES)
			coverage.no_entry_point++;
		else {
			i++;
			continue;
		}
		pending[i] = pending[--npending];
	}
	return npending;
}

struct alloc_coverage alloc_coverage(void)
{
	struct alloc_coverage c = coverage;
	c.still_pending = npending;
	return c;
}

struct scan_ctx {
	struct probes *p;
	int pid, attached, files;
	bool seen_exe;
	const char *exe;
};

/* One line of the target's maps (proctext_maps_foreach): a file mapped from offset 0 that is its
 * executable (the first such mapping) or a libc gets the uprobes. */
static void scan_line(const struct maps_line *l, void *arg)
{
	struct scan_ctx *c = arg;
	char file[4096];
	if (l->off != 0 || l->path_len == 0 || l->path[0] != '/' || l->path_len >= sizeof(file) ||
	    memchr(l->path, 0, l->path_len))
		return;
	memcpy(file, l->path, l->path_len);
	file[l->path_len] = 0;
	const char *base = strrchr(file, '/') + 1;
	bool this_exe = !c->seen_exe && !strcmp(file, c->exe);
	if (!this_exe && !is_libc(base))
		return;
	c->seen_exe |= this_exe;
	c->files++;
	c->attached += attach_file(c->p, c->pid, l->start, l->end, base);
}

static int attach_now(struct probes *p, int pid, bool *gone)
{
	*gone = false;
	if (!p->skel || !p->attached[P_ALLOC])
		return 0;
	char exe[4096];
	size_t len;
	char *maps = read_proc_maps_and_exe(pid, &len, exe, sizeof(exe));
	if (!maps) {
		*gone = errno == ENOENT || errno == ESRCH;
		snprintf(why_none, sizeof(why_none), "pid %d: cannot read its maps: %s", pid, strerror(errno));
		return 0;
	}
	if (len == 0) { /* a zombie: no process has an empty address space */
		free(maps);
		*gone = true;
		return 0;
	}
	struct scan_ctx c = { .p = p, .pid = pid, .exe = exe };
	proctext_maps_foreach(maps, len, scan_line, &c);
	free(maps);
	if (c.files == 0)
		snprintf(why_none, sizeof(why_none), "pid %d: no libc mapped and no executable found in its maps", pid);
	return c.attached;
}

size_t alloc_uprobes(void)
{
	return total;
}

const char *alloc_why_none(void)
{
	return why_none;
}

const char *alloc_functions(void)
{
	static char buf[160];
	size_t off = 0;
	buf[0] = 0;
	for (int f = 0; f < AF__COUNT; f++)
		if (functions_seen & (1u << f))
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", off ? ", " : "", alloc_fn_names[f]);
	return buf;
}

void alloc_detach(void)
{
	held_links_release(links, nlinks);
	free(links);
	links = NULL;
	nlinks = links_cap = 0;
}
