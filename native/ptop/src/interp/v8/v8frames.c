#include "v8frames.h"
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

struct find_ctx {
	const char *exe;
	uint64_t start, end;
	bool found;
};

/* The node executable (`node`, `nodejs`) or a mapped libnode, by its first mapping: by name only,
 * the parent parses nothing of the file. */
static void candidate_line(const struct maps_line *l, void *arg)
{
	struct find_ctx *f = arg;
	if (f->found || l->off != 0 || l->path_len == 0 || l->path[0] != '/' || l->path_len >= 4096 ||
	    memchr(l->path, 0, l->path_len))
		return;
	char file[4096];
	memcpy(file, l->path, l->path_len);
	file[l->path_len] = 0;
	const char *base = strrchr(file, '/') + 1;
	bool is_exe = !strcmp(file, f->exe) && (!strcmp(base, "node") || !strcmp(base, "nodejs"));
	if (!is_exe && strncmp(base, "libnode.so", 10))
		return;
	f->start = l->start;
	f->end = l->end;
	f->found = true;
}

/* The helper's answer for the file fd (closed here); 0 when there is one that names V8. */
static int analyze(int fd, struct v8_elf_info *info)
{
	struct stat st;
	bool stated = fstat(fd, &st) == 0;
	for (size_t i = 0; stated && i < nfiles; i++)
		if (files[i].dev == st.st_dev && files[i].ino == st.st_ino && files[i].mtime.tv_sec == st.st_mtim.tv_sec &&
		    files[i].mtime.tv_nsec == st.st_mtim.tv_nsec) {
			close(fd);
			*info = files[i].info;
			return info->status == V8ELF_NOT_V8 ? -1 : 0;
		}
	int asked = elfhelper_v8(fd, info);
	close(fd);
	if (asked)
		return -1;
	if (stated) {
		files = xrealloc(files, nfiles + 1, sizeof(*files));
		files[nfiles++] = (struct v8_known_file){ st.st_dev, st.st_ino, st.st_mtim, *info };
	}
	return info->status == V8ELF_NOT_V8 ? -1 : 0;
}

void v8_attach(const struct interp_handle *h, int pid)
{
	if (!h->procs)
		return;
	char exe[4096];
	size_t len;
	char *maps = read_proc_maps_and_exe(pid, &len, exe, sizeof(exe));
	if (!maps)
		return;
	struct find_ctx f = { .exe = exe };
	proctext_maps_foreach(maps, len, candidate_line, &f);
	free(maps);
	if (!f.found)
		return;
	char mf[96];
	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, f.start, f.end);
	int fd = open(mf, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	struct v8_elf_info info;
	if (analyze(fd, &info))
		return;
	/* the helper's answer is checked again: only a layout that passes reaches the walker */
	int why = info.status == V8ELF_SUPPORTED ? v8_layout_check(&info.layout) : info.why;
	if (why != V8WHY_NONE) {
		note(pid, &info, why ? why : V8WHY__COUNT);
		return;
	}
	const struct v8_layout *l = &info.layout;
	struct v8_proc vp = {
		.fp_function = l->fp_function, .fp_context = l->fp_context, .map = (__u32)l->map,
		.map_type = (__u32)l->map_type, .fn_shared = (__u32)l->fn_shared, .sfi_name = (__u32)l->sfi_name,
		.sfi_script = (__u32)l->sfi_script, .type_fn_first = (__u16)l->type_fn,
		.type_fn_end = (__u16)l->type_fn_end, .type_sfi = (__u16)l->type_sfi,
		.type_code = (__u16)l->type_code, .fn_code = (__u32)l->fn_code, .code_istart = (__u32)l->code_istart,
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
	for (size_t i = 0; i < ntargets; i++) {
		char path[64];
		if (targets[i].memfd >= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/mem", targets[i].pid);
		targets[i].memfd = open(path, O_RDONLY | O_CLOEXEC);
	}
}

static struct v8_target *find_target(int pid)
{
	for (size_t i = 0; i < ntargets; i++)
		if (targets[i].pid == pid)
			return &targets[i];
	return NULL;
}

static int mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	int fd = *(int *)ctx;
	if (len > (1u << 16) || addr > INT64_MAX - len)
		return -1;
	return pread(fd, buf, len, (off_t)addr) == (ssize_t)len ? 0 : -1;
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
		  fields ? v8_function_read(&t->layout, mem_read, &t->memfd, sfi, fields[0], fields[1], &fn) :
			   v8_function_read_now(&t->layout, mem_read, &t->memfd, sfi, &fn);
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
		ni = v8_inlined_read(&t->layout, mem_read, &t->memfd, f->code, f->istart, f->pc, leaf, inl, V8_INLINE_MAX);
	for (size_t j = ni; j-- > 0;)
		ids[n++] = function_frame(t, inl[j], NULL);
	return n;
}

bool v8_section(const void *section, size_t len)
{
	struct interp_section_hdr h;
	if (!section || len < sizeof(h))
		return false;
	memcpy(&h, section, sizeof(h));
	return h.kind == INTERP_V8;
}

size_t v8_merge(int pid, const void *section, size_t len, const int *native, const uint64_t *pcs, size_t n, int *out,
		size_t cap)
{
	struct v8_target *t = find_target(pid);
	struct interp_section_hdr h;
	size_t o = 0;
	int js[V8_FRAMES_CAP * (1 + V8_INLINE_MAX)];
	uint64_t jpc[V8_FRAMES_CAP];
	size_t jat[V8_FRAMES_CAP + 1]; /* record k's ids: js[jat[k] .. jat[k + 1]) */
	size_t m = 0;
	jat[0] = 0;
	if (t && v8_section(section, len)) {
		memcpy(&h, section, sizeof(h));
		if (h.len <= len && h.nframes <= V8_SECTION_FRAMES && h.len >= sizeof(h) + (size_t)h.nframes * sizeof(struct v8_frame))
			for (size_t j = h.nframes; j-- > 0;) { /* the section is innermost first */
				struct v8_frame f;
				memcpy(&f, (const unsigned char *)section + sizeof(h) + j * sizeof(f), sizeof(f));
				jpc[m] = f.pc;
				/* the sample's own pc is the native leaf's; every other is a return address */
				int leaf = n > 0 && f.pc == pcs[n - 1];
				jat[m + 1] = jat[m] + js_frames(t, &f, leaf, &js[jat[m]]);
				m++;
			}
	}
	size_t next = 0, insert_at = 0;
	bool any = false;
	for (size_t i = 0; i < n && m > 0; i++)
		for (size_t k = 0; k < m; k++)
			any |= jpc[k] == pcs[i];
	if (!any) {
		/* The native unwind shows none of them (it ended before V8's frames): the JS frames first,
		 * then what the native unwind found, as for Python. */
		for (size_t j = 0; j < jat[m] && o < cap; j++)
			out[o++] = js[j];
		for (size_t i = 0; i < n && o < cap; i++)
			out[o++] = native[i];
		return o;
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = next;
		while (k < m && jpc[k] != pcs[i])
			k++;
		if (k == m) {
			if (o < cap)
				out[o++] = native[i];
			continue;
		}
		for (size_t j = jat[next]; j < jat[k + 1] && o < cap; j++)
			out[o++] = js[j];
		next = k + 1;
		insert_at = o;
	}
	/* inner JS frames whose pc the native unwind did not show (a native leaf without a frame of its
	 * own was called from them): just leafward of the last one placed */
	if (next > 0 && next < m) {
		size_t extra = jat[m] - jat[next];
		if (o + extra > cap)
			extra = cap - o;
		memmove(&out[insert_at + extra], &out[insert_at], (o - insert_at) * sizeof(int));
		for (size_t j = 0; j < extra; j++)
			out[insert_at + j] = js[jat[next] + j];
		o += extra;
	}
	return o;
}

size_t v8_notes(const char **out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < nnotes && n < cap; i++)
		out[n++] = notes[i];
	return n;
}
