#include "v8frames.h"
#include "target_mem.h"
#include "elfhelper.h"
#include "interp.h"
#include "output.h"
#include "proctext.h"
#include "rootfs.h"
#include "strtab.h"
#include "symbolize.h"
#include "v8name.h"
#include <linux/types.h>
#include "v8.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#define V8_MAX_NOTES 16

struct v8_target {
	int pid;
	struct v8_layout layout;
	int memfd;
	struct strmap frames; /* "sfi:name:script" -> frame id */
	size_t disagree;      /* frames the perf map names otherwise than V8's metadata (its name kept) */
	char example[300];
};

/* The helper's answer per file: a service of many node processes reads its 100 MB binary once. */
struct v8_known_file {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	struct v8_elf_info info;
};

static struct v8_known_file *files;
static size_t nfiles;
static struct v8_target *targets;
static size_t ntargets;
static char *notes[V8_MAX_NOTES];
static size_t nnotes;

static void note(int pid, const struct v8_elf_info *info, int why)
{
	static const char *const WHY[V8WHY__COUNT] = {
		[V8WHY_MISSING] = "its V8 lacks the post-mortem metadata value v8dbg_",
		[V8WHY_COMPRESSED] = "its V8 uses pointer compression or 32-bit values, which ptop does not read",
		[V8WHY_TAGS] = "its V8's heap-object or SMI tags are not the ones ptop reads",
		[V8WHY_RANGE] = "its V8 metadata has an offset or type out of the range ptop accepts",
		[V8WHY_NO_METADATA] = "its node exports no V8 post-mortem metadata (v8dbg_ symbols)",
	};
	char buf[320];
	const char *w = why > V8WHY_NONE && why < V8WHY__COUNT ? WHY[why] : "its V8 metadata could not be read";
	snprintf(buf, sizeof(buf), "js frames: V8 not recognised (pid %d): %s%s; its stacks are native only", pid, w,
		 why == V8WHY_MISSING ? v8_layout_field_symbol(info->missing) : "");
	for (size_t i = 0; i < nnotes; i++)
		if (!strcmp(notes[i], buf))
			return;
	if (nnotes < V8_MAX_NOTES)
		notes[nnotes++] = strdup(buf);
}

#define V8_MAX_CANDIDATES 4

struct find_ctx {
	const char *exe;
	uint64_t start[V8_MAX_CANDIDATES], end[V8_MAX_CANDIDATES];
	size_t n;
};

/* The node executable (`node`, `nodejs`) and a mapped libnode (Debian's node is a small executable
 * linking libnode.so.108), by their first mappings: by name only, the parent parses nothing of them. */
static void candidate_line(const struct maps_line *l, void *arg)
{
	struct find_ctx *f = arg;
	if (f->n == V8_MAX_CANDIDATES || l->off != 0 || l->path_len == 0 || l->path[0] != '/' || l->path_len >= 4096 ||
	    memchr(l->path, 0, l->path_len))
		return;
	char file[4096];
	memcpy(file, l->path, l->path_len);
	file[l->path_len] = 0;
	const char *base = strrchr(file, '/') + 1;
	bool is_exe = !strcmp(file, f->exe) && (!strcmp(base, "node") || !strcmp(base, "nodejs"));
	if (!is_exe && strncmp(base, "libnode.so", 10))
		return;
	f->start[f->n] = l->start;
	f->end[f->n] = l->end;
	f->n++;
}

/* The helper's answer for the file fd (closed here): 0 when it names V8, 1 when it names none, -1
 * when there is none (the helper gone). */
static int analyze(int fd, struct v8_elf_info *info)
{
	struct stat st;
	bool stated = fstat(fd, &st) == 0;
	for (size_t i = 0; stated && i < nfiles; i++)
		if (files[i].dev == st.st_dev && files[i].ino == st.st_ino && files[i].mtime.tv_sec == st.st_mtim.tv_sec &&
		    files[i].mtime.tv_nsec == st.st_mtim.tv_nsec) {
			close(fd);
			*info = files[i].info;
			return info->status == V8ELF_NOT_V8 ? 1 : 0;
		}
	int asked = elfhelper_v8(fd, info);
	close(fd);
	if (asked)
		return -1;
	if (stated) {
		files = xrealloc(files, nfiles + 1, sizeof(*files));
		files[nfiles++] = (struct v8_known_file){ st.st_dev, st.st_ino, st.st_mtim, *info };
	}
	return info->status == V8ELF_NOT_V8 ? 1 : 0;
}

void v8_attach(const struct interp_handle *h, int pid)
{
	if (!h->procs)
		return;
	char exe[4096];
	struct find_ctx f = { .exe = exe };
	if (!proc_maps_each(pid, exe, sizeof(exe), candidate_line, &f))
		return;
	struct v8_elf_info info;
	size_t i = 0, without = 0; /* files the helper read and found no V8 metadata in */
	for (; i < f.n; i++) {
		char mf[96];
		snprintf(mf, sizeof(mf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, f.start[i], f.end[i]);
		int fd = open(mf, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		int got = fd >= 0 ? analyze(fd, &info) : -1;
		if (got == 0)
			break;
		without += got == 1;
	}
	if (i == f.n) {
		/* a node whose files export no V8 metadata at all (a build without it): said, not guessed */
		if (f.n > 0 && without == f.n)
			note(pid, &info, V8WHY_NO_METADATA);
		return;
	}
	/* the helper's answer is checked again: only a layout that passes reaches the walker */
	int why = info.status == V8ELF_SUPPORTED ? v8_layout_check(&info.layout) : info.why;
	if (why != V8WHY_NONE) {
		note(pid, &info, why ? why : V8WHY__COUNT);
		return;
	}
	const struct v8_layout *l = &info.layout;
	struct v8_proc vp = {
		.fp_function = l->fp_function, .fp_context = l->fp_context, .fp_bytecode = l->fp_bytecode, .map = (__u32)l->map,
		.map_type = (__u32)l->map_type, .fn_shared = (__u32)l->fn_shared, .sfi_name = (__u32)l->sfi_name,
		.sfi_script = (__u32)l->sfi_script, .type_fn_first = (__u16)l->type_fn,
		.type_fn_end = (__u16)l->type_fn_end, .type_sfi = (__u16)l->type_sfi,
		.type_code = (__u16)l->type_code, .type_bytecode = (__u16)l->type_bytecode, .fn_code = (__u32)l->fn_code, .code_istart = (__u32)l->code_istart,
		.code_isize = (__u32)l->code_isize,
	};
	uint32_t key = (uint32_t)pid;
	if (bpf_map__update_elem(h->procs, &key, sizeof(key), &vp, sizeof(vp), BPF_ANY)) {
		fprintf(stderr, "ptop: pid %d: cannot record its V8 layout in v8_procs\n", pid);
		return;
	}
	targets = xrealloc(targets, ntargets + 1, sizeof(*targets));
	targets[ntargets++] = (struct v8_target){ .pid = pid, .layout = *l, .memfd = -1 };
}

void v8_prepare(void)
{
	for (size_t i = 0; i < ntargets; i++)
		if (targets[i].memfd < 0)
			targets[i].memfd = target_mem_open(targets[i].pid);
}

static struct v8_target *find_target(int pid)
{
	for (size_t i = 0; i < ntargets; i++)
		if (targets[i].pid == pid)
			return &targets[i];
	return NULL;
}

/* The frame id of a function: fields non-NULL, checked against what the walker read (its own frame);
 * NULL, read now (an inlined function, which its code vouches for). */
static int function_frame(struct v8_target *t, uint64_t sfi, const uint64_t *fields)
{
	char key[80];
	if (fields)
		snprintf(key, sizeof(key), "%" PRIx64 ":%" PRIx64 ":%" PRIx64, sfi, fields[0], fields[1]);
	else
		snprintf(key, sizeof(key), "i:%" PRIx64, sfi);
	int id = strmap_get(&t->frames, key);
	if (id >= 0)
		return id;
	struct v8_fn_info fn;
	struct frame_info fi = { .kind = "jit" };
	char anon[V8_FILE_MAX + 32];
	int got = t->memfd < 0 ? -1 :
		  fields ? v8_function_read(&t->layout, target_mem_read, &t->memfd, sfi, fields[0], fields[1], &fn) :
			   v8_function_read_now(&t->layout, target_mem_read, &t->memfd, sfi, &fn);
	if (got == 0) {
		const char *slash = strrchr(fn.file, '/');
		const char *base = slash ? slash + 1 : fn.file;
		if (!fn.name[0]) { /* anonymous: named by its file and line */
			snprintf(anon, sizeof(anon), fn.line ? "(anonymous %s:%d)" : "(anonymous %s)", base[0] ? base : "?",
				 fn.line);
			fi.function = anon;
		} else {
			fi.function = fn.name;
		}
		fi.module = fn.file[0] ? fn.file : NULL;
		fi.line = fn.line;
	} else {
		/* moved or gone by the end of the window: said so, never guessed */
		fi.function = "[js] <function gone>";
		fi.address = sfi;
	}
	id = out_frame_id(&fi);
	strmap_put(&t->frames, key, id);
	return id;
}

/* One recorded frame's ids, root first: its own function, then those inlined at its pc. */
static size_t js_frames(struct v8_target *t, const struct v8_frame *f, int leaf, int *ids)
{
	const uint64_t fields[2] = { f->name, f->script };
	uint64_t inl[V8_INLINE_MAX];
	size_t n = 0, ni = 0;
	ids[n++] = function_frame(t, f->sfi, fields);
	if (f->code && t->memfd >= 0)
		ni = v8_inlined_read(&t->layout, target_mem_read, &t->memfd, f->code, f->istart, f->pc, leaf, inl, V8_INLINE_MAX);
	for (size_t j = ni; j-- > 0;)
		ids[n++] = function_frame(t, inl[j], NULL);
	return n;
}

/* Whether the target's perf map named this native frame (then its name is kept). Where V8's
 * metadata names the function otherwise, the disagreement is counted for a note saying which source
 * named the frame. */
static bool perfmap_named(struct v8_target *t, int native, int js)
{
	const char *module = out_frame_module(native), *pm = out_frame_function(native), *v8 = out_frame_function(js);
	if (!module || strcmp(module, "[jit]") || !pm)
		return false;
	/* perf-basic-prof names a function `JS:*name file:line`: it agrees when V8's name is in it */
	if (v8 && v8[0] != '(' && v8[0] != '[' && !strstr(pm, v8)) {
		if (t->disagree++ == 0)
			snprintf(t->example, sizeof(t->example), "perf map `%.150s`, V8 `%.100s`", pm, v8);
	}
	return true;
}

/* The walker's pc (the sample's, or a return address) against the unwinder's (the sample's, or a
 * return address less one: its call instruction, unwind_child.c). */
static bool same_pc(uint64_t walker, uint64_t unwinder)
{
	return walker == unwinder || walker == unwinder + 1;
}

bool v8_section(const void *section, size_t len)
{
	struct interp_section_hdr h;
	if (!section || len < sizeof(h))
		return false;
	memcpy(&h, section, sizeof(h));
	return h.kind == INTERP_V8;
}

/* The section's JS frames, root first: record k's ids are ids[at[k] .. at[k + 1]) (its function, then
 * those inlined at its pc), its pc pcs[k]. Returns the records' count. */
struct js_records {
	int ids[V8_FRAMES_CAP * (1 + V8_INLINE_MAX)];
	uint64_t pcs[V8_FRAMES_CAP];
	size_t at[V8_FRAMES_CAP + 1];
	size_t m;
};

static void read_records(struct v8_target *t, const void *section, size_t len, uint64_t leaf_pc, struct js_records *r)
{
	struct interp_section_hdr h;
	r->m = 0;
	r->at[0] = 0;
	memcpy(&h, section, sizeof(h));
	if (h.len > len || h.nframes > V8_SECTION_FRAMES || h.len < sizeof(h) + (size_t)h.nframes * sizeof(struct v8_frame))
		return;
	for (size_t j = h.nframes; j-- > 0;) { /* the section is innermost first */
		struct v8_frame f;
		memcpy(&f, (const unsigned char *)section + sizeof(h) + j * sizeof(f), sizeof(f));
		r->pcs[r->m] = f.pc;
		/* the sample's own pc is the native leaf's; every other is a return address */
		r->at[r->m + 1] = r->at[r->m] + js_frames(t, &f, f.pc && f.pc == leaf_pc, &r->ids[r->at[r->m]]);
		r->m++;
	}
}

struct merge_out {
	int *out;
	size_t o, cap;
};

static void put(struct merge_out *mo, int id)
{
	if (mo->o < mo->cap)
		mo->out[mo->o++] = id;
}

static void put_record(struct merge_out *mo, const struct js_records *r, size_t k)
{
	for (size_t j = r->at[k]; j < r->at[k + 1]; j++)
		put(mo, r->ids[j]);
}

static bool is_anon(int id)
{
	const char *module = out_frame_module(id);
	return module && !strcmp(module, "[anon]");
}

/* Native frames [a, b) and the records [ra, rb) between two matched pairs: the records take the
 * places of the unnamed JIT frames ([anon]: code V8 runs for them, on-stack-replaced or entered
 * at a prologue) in order; those left go just after the last one placed, else first. */
static void put_segment(struct merge_out *mo, const int *native, size_t a, size_t b, const struct js_records *r, size_t ra,
			size_t rb)
{
	size_t anon = 0;
	for (size_t i = a; i < b; i++)
		anon += is_anon(native[i]);
	size_t replace = anon < rb - ra ? anon : rb - ra, placed = 0;
	if (replace == 0)
		for (size_t k = ra; k < rb; k++)
			put_record(mo, r, k);
	for (size_t i = a; i < b; i++) {
		if (placed < replace && is_anon(native[i])) {
			put_record(mo, r, ra + placed++);
			if (placed == replace)
				for (size_t k = ra + replace; k < rb; k++)
					put_record(mo, r, k);
			continue;
		}
		put(mo, native[i]);
	}
}

size_t v8_merge(int pid, const void *section, size_t len, const int *native, const uint64_t *pcs, size_t n, int *out,
		size_t cap)
{
	struct v8_target *t = find_target(pid);
	struct merge_out mo = { out, 0, cap };
	static struct js_records r;
	r.m = 0;
	r.at[0] = 0;
	if (t && v8_section(section, len))
		read_records(t, section, len, n ? pcs[n - 1] : 0, &r);
	/* Each record pairs with the native frame of the same pc, root first, in order. */
	size_t i0 = 0, k0 = 0;
	for (size_t k = 0; k < r.m; k++) {
		size_t i = i0;
		while (i < n && !(r.pcs[k] && same_pc(r.pcs[k], pcs[i])))
			i++;
		if (i == n)
			continue;
		put_segment(&mo, native, i0, i, &r, k0, k);
		/* the frame itself: the perf map's name where it has one (it wins), else V8's; then the
		 * functions inlined there */
		put(&mo, perfmap_named(t, native[i], r.ids[r.at[k]]) ? native[i] : r.ids[r.at[k]]);
		for (size_t j = r.at[k] + 1; j < r.at[k + 1]; j++)
			put(&mo, r.ids[j]);
		i0 = i + 1;
		k0 = k + 1;
	}
	put_segment(&mo, native, i0, n, &r, k0, r.m);
	return mo.o;
}

size_t v8_notes(const char **out, size_t cap)
{
	for (size_t i = 0; i < ntargets; i++) {
		if (!targets[i].disagree)
			continue;
		char buf[512];
		snprintf(buf, sizeof(buf), "js frames: pid %d has a perf map, whose names are kept for the code it names; "
			 "in %zu stacks V8's own metadata named such a frame otherwise (e.g. %s)", targets[i].pid,
			 targets[i].disagree, targets[i].example);
		targets[i].disagree = 0;
		if (nnotes < V8_MAX_NOTES)
			notes[nnotes++] = strdup(buf);
	}
	size_t n = 0;
	for (size_t i = 0; i < nnotes && n < cap; i++)
		out[n++] = notes[i];
	return n;
}
