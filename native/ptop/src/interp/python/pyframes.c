#include "pyframes.h"
#include "target_mem.h"
#include "output.h"
#include "interp.h"
#include "proctext.h"
#include "rootfs.h"
#include "pycode.h"
#include "elfhelper.h"
#include "pyoffsets.h"
#include <linux/types.h>
#include "python.h"
#include "strtab.h"
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#define PY_MAX_CANDIDATES 4
#define PY_MAX_NOTES 16

struct py_target {
	int pid;
	const struct py_version_offsets *off;
	uint32_t version;
	struct py_types types;
	int memfd;
	struct strmap frames; /* "code:firstlineno" -> frame id */
};

static struct py_target *targets;
static size_t ntargets;
static char *notes[PY_MAX_NOTES];
static size_t nnotes;

/* The note says what stops the walk: a version ptop has no offsets for is named with the versions it
 * supports; a supported version whose file is not as ptop's table expects (hostile or custom-built
 * offsets, a missing symbol) says that, not "unsupported". */
static void note(const struct py_elf_info *info, int pid)
{
	char buf[320];
	uint32_t v = info->version_hex;
	const char *why = py_elf_why_text(info->why);
	if (v && !py_offsets_for(v))
		snprintf(buf, sizeof(buf), "python frames: unsupported version %u.%u.%u (pid %d): its stacks are native "
			 "only (supported: %s)", v >> 24, (v >> 16) & 0xff, (v >> 8) & 0xff, pid, py_supported_versions());
	else if (v)
		snprintf(buf, sizeof(buf), "python frames: CPython %u.%u.%u (pid %d) not walked: %s; its stacks are native "
			 "only", v >> 24, (v >> 16) & 0xff, (v >> 8) & 0xff, pid, why[0] ? why : "its interpreter state "
			 "could not be located");
	else
		snprintf(buf, sizeof(buf), "python frames: unrecognised interpreter (pid %d)%s%s: its stacks are native only",
			 pid, why[0] ? ": " : "", why);
	for (size_t i = 0; i < nnotes; i++)
		if (!strcmp(notes[i], buf))
			return;
	if (nnotes < PY_MAX_NOTES)
		notes[nnotes++] = strdup(buf);
}

/* Candidate interpreter files of pid from /proc/PID/maps (kernel text): the executable and any
 * libpython, each by its first mapping (file offset 0). */
struct candidate {
	uint64_t start, end;
	char base[256];
};

struct find_ctx {
	struct candidate *c;
	size_t n, cap;
	const char *exe;
};

static void candidate_line(const struct maps_line *l, void *arg)
{
	struct find_ctx *f = arg;
	char file[4096];
	if (f->n == f->cap || l->off != 0 || l->path_len == 0 || l->path[0] != '/' || l->path_len >= sizeof(file) ||
	    memchr(l->path, 0, l->path_len))
		return;
	memcpy(file, l->path, l->path_len);
	file[l->path_len] = 0;
	const char *base = strrchr(file, '/') + 1;
	/* By name only (the parent parses nothing of the file): an executable called python…
	 * (python3, python3.12, a container's /usr/local/bin/python, a venv's python) or a
	 * libpython. A CPython linked into a binary of another name is not looked at. */
	bool is_exe = !strcmp(file, f->exe) && !strncmp(base, "python", 6);
	if (!is_exe && strncmp(base, "libpython", 9))
		return;
	struct candidate *c = &f->c[f->n++];
	c->start = l->start;
	c->end = l->end;
	snprintf(c->base, sizeof(c->base), "%s", base);
}

static size_t find_candidates(int pid, struct candidate *c, size_t cap)
{
	char exe[4096];
	struct find_ctx f = { c, 0, cap, exe };
	return proc_maps_each(pid, exe, sizeof(exe), candidate_line, &f) ? f.n : 0;
}

void py_attach(const struct interp_handle *h, int pid)
{
	if (!h->procs)
		return;
	struct candidate c[PY_MAX_CANDIDATES];
	size_t nc = find_candidates(pid, c, PY_MAX_CANDIDATES);
	for (size_t i = 0; i < nc; i++) {
		/* map_files: exactly the file that is mapped, whatever its path now names */
		char mf[96];
		snprintf(mf, sizeof(mf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, c[i].start, c[i].end);
		int fd = open(mf, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			continue;
		struct py_elf_info info;
		int asked = elfhelper_analyze(fd, c[i].base, &info);
		close(fd);
		if (asked || info.status == PYELF_NOT_PYTHON)
			continue;
		const struct py_version_offsets *o = py_offsets_for(info.version_hex);
		if (info.status != PYELF_SUPPORTED || !o) {
			note(&info, pid);
			return;
		}
		uint64_t bias = c[i].start - info.first_load_vaddr;
		struct py_proc pp = { .runtime = bias + info.runtime_vaddr };
#define COPY_OFFSET(field) .field = o->field,
		pp.off = (struct py_walk_offsets){ PY_WALK_OFFSET_FIELDS(COPY_OFFSET) };
#undef COPY_OFFSET
		uint32_t key = (uint32_t)pid;
		if (bpf_map__update_elem(h->procs, &key, sizeof(key), &pp, sizeof(pp), BPF_ANY)) {
			fprintf(stderr, "ptop: pid %d: cannot record its Python interpreter in py_procs\n", pid);
			return;
		}
		targets = xrealloc(targets, ntargets + 1, sizeof(*targets));
		targets[ntargets++] = (struct py_target){
			.pid = pid,
			.off = o,
			.version = info.version_hex,
			.types = { info.code_type_vaddr ? bias + info.code_type_vaddr : 0,
				   info.unicode_type_vaddr ? bias + info.unicode_type_vaddr : 0 },
			.memfd = -1,
		};
		return;
	}
}

static struct py_target *find_target(int pid)
{
	for (size_t i = 0; i < ntargets; i++)
		if (targets[i].pid == pid)
			return &targets[i];
	return NULL;
}

void py_prepare(void)
{
	for (size_t i = 0; i < ntargets; i++)
		if (targets[i].memfd < 0)
			targets[i].memfd = target_mem_open(targets[i].pid);
}

static int python_frame(struct py_target *t, const struct py_frame *f)
{
	char key[64];
	snprintf(key, sizeof(key), "%" PRIx64 ":%d", (uint64_t)f->code, f->firstlineno);
	int id = strmap_get(&t->frames, key);
	if (id >= 0)
		return id;
	struct py_code_info ci;
	struct frame_info fi = { .kind = "python", .module = NULL };
	if (t->memfd >= 0 && py_code_read(t->off, &t->types, target_mem_read, &t->memfd, f->code, f->firstlineno, &ci) == 0) {
		/* module = file only: a function keeps its identity across versions when lines move */
		fi.function = ci.name;
		fi.module = ci.filename;
		fi.line = ci.firstlineno;
	} else {
		/* Gone by the end of the window (or unreadable): said so, never guessed. */
		fi.function = "[python] <code object gone>";
		fi.address = f->code;
	}
	id = out_frame_id(&fi);
	strmap_put(&t->frames, key, id);
	return id;
}

size_t py_section_frames(int pid, const void *section, size_t len, int *ids, uint32_t *flags, size_t cap)
{
	struct py_target *t = find_target(pid);
	struct interp_section_hdr h;
	if (!t || !section || len < sizeof(h))
		return 0;
	memcpy(&h, section, sizeof(h));
	if (h.kind != INTERP_CPYTHON || h.len > len || h.nframes > PY_MAX_FRAMES ||
	    h.len < sizeof(h) + (size_t)h.nframes * sizeof(struct py_frame))
		return 0;
	const unsigned char *p = (const unsigned char *)section + sizeof(h);
	size_t n = 0;
	for (size_t j = h.nframes; j-- > 0 && n < cap;) { /* the section is innermost first */
		struct py_frame f;
		memcpy(&f, p + j * sizeof(f), sizeof(f));
		ids[n] = python_frame(t, &f);
		flags[n] = f.flags;
		n++;
	}
	return n;
}

size_t py_notes(const char **out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < nnotes && n < cap; i++)
		out[n++] = notes[i];
	return n;
}
