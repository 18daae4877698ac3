#include "hotspot.h"
#include "target_mem.h"
#include "hs_names.h"
#include "output.h"
#include "proctext.h"
#include "rootfs.h"
#include "strtab.h"
#include "symbolize.h"
#include "unwind.h"
#include <linux/types.h>
#include "interp_section.h"
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HS_MAX_NOTES 8

struct jvm {
	int pid;
	int libfd, memfd;
	uint64_t start, off;
	bool opened, ok;
	char why[160];
	struct hs_vm vm;
	struct strmap frames; /* "addr:flags" -> frame id */
	struct strmap learned; /* "addr:stamp" -> index in names: named by the unwinder during the window */
	char **names;
	size_t nnames;
	double samples, with_java, lost[HS_LOST__COUNT];
};

static struct jvm *jvms;
static size_t njvms;

struct lib_find {
	uint64_t start, end, off;
	bool found;
};

/* By name only (the parent parses nothing of the file): the mapping of libjvm.so at file offset 0. */
static void lib_line(const struct maps_line *l, void *arg)
{
	struct lib_find *f = arg;
	static const char name[] = "/libjvm.so";
	const size_t nl = sizeof(name) - 1;
	if (f->found || l->off != 0 || l->path_len < nl || memcmp(l->path + l->path_len - nl, name, nl))
		return;
	*f = (struct lib_find){ l->start, l->end, l->off, true };
}

static struct jvm *find(int pid);

void hs_attach(int pid, bool again)
{
	if (again && find(pid))
		return;
	char exe[4096];
	struct lib_find f = { 0 };
	if (!proc_maps_each(pid, exe, sizeof(exe), lib_line, &f) || !f.found)
		return;
	struct jvm *j = find(pid); /* a pid reused: the earlier process's entry goes */
	if (j) {
		if (j->libfd >= 0)
			close(j->libfd);
		if (j->memfd >= 0)
			close(j->memfd);
		strmap_free(&j->frames);
		strmap_free(&j->learned);
		for (size_t i = 0; i < j->nnames; i++)
			free(j->names[i]);
		free(j->names);
	} else {
		struct jvm *v = realloc(jvms, (njvms + 1) * sizeof(*jvms));
		if (!v)
			return;
		jvms = v;
		j = &jvms[njvms++];
	}
	*j = (struct jvm){ .pid = pid, .start = f.start, .off = f.off };
	/* map_files: exactly the file that is mapped. mem: read later, unprivileged, by the unwinder
	 * and by the report; the kernel checks ptrace access when it is opened. */
	char path[96];
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, f.start, f.end);
	j->libfd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	j->memfd = target_mem_open(pid);
	if (j->libfd < 0 || j->memfd < 0) {
		snprintf(j->why, sizeof(j->why), "its libjvm.so or memory could not be opened");
		j->opened = true;
		return;
	}
	unwind_send_jvm(pid, j->libfd, f.start, f.off, j->memfd);
}

static struct jvm *find(int pid)
{
	for (size_t i = 0; i < njvms; i++)
		if (jvms[i].pid == pid)
			return &jvms[i];
	return NULL;
}

/* The VM's description, read once, after the drop. */
static struct jvm *open_vm(int pid)
{
	struct jvm *j = find(pid);
	if (!j)
		return NULL;
	if (!j->opened) {
		j->opened = true;
		struct hs_elf_syms syms;
		if (hs_elf_find_fd(j->libfd, j->start, j->off, &syms))
			snprintf(j->why, sizeof(j->why), "its libjvm.so exports no gHotSpotVMStructs tables");
		else
			j->ok = !hs_vm_open(target_mem_read, &j->memfd, &syms, &j->vm, j->why, sizeof(j->why));
	}
	return j;
}

static const char *const LOST_TEXT[HS_LOST__COUNT] = {
	[HS_LOST_NO_BLOB] = "a pc in no code blob (code freed between the sample and its walk)",
	[HS_LOST_FRAME] = "a frame whose layout did not check out (a sample in a method's prologue or a stub)",
	[HS_LOST_METHOD] = "a method pointer that did not check out",
	[HS_LOST_CALLER] = "a return address at no call site (code moved or being deoptimised)",
	[HS_LOST_DEPTH] = "more Java frames than a stack holds",
	[HS_LOST_READ] = "the VM's memory could not be read",
};

/* The learned map's key of a method and stamp. */
static void learned_key(char key[32], uint64_t method, uint32_t stamp)
{
	snprintf(key, 32, "%" PRIx64 ":%" PRIx32, method, stamp);
}

void hs_learn_name(int pid, uint64_t method, uint32_t stamp, const char *text, size_t len)
{
	struct jvm *j = find(pid);
	char key[32], *copy;
	learned_key(key, method, stamp);
	if (!j || strmap_get(&j->learned, key) >= 0 || j->nnames >= INT32_MAX || !(copy = strndup(text, len)))
		return;
	char **v = realloc(j->names, (j->nnames + 1) * sizeof(*v));
	if (!v) {
		free(copy);
		return;
	}
	j->names = v;
	j->names[j->nnames] = copy;
	strmap_put(&j->learned, key, (int)j->nnames++);
}

/* The name the unwinder read for the method with that stamp, NULL when none. */
static const char *learned(const struct jvm *j, uint64_t method, uint32_t stamp)
{
	char key[32];
	learned_key(key, method, stamp);
	int i = strmap_get(&j->learned, key);
	return i >= 0 && (size_t)i < j->nnames ? j->names[i] : NULL;
}

static int frame_for(struct jvm *j, const struct hs_record *r)
{
	char key[48];
	snprintf(key, sizeof(key), "%" PRIx64 ":%u:%u", (uint64_t)r->addr, r->flags, r->why);
	int id = strmap_get(&j->frames, key);
	if (id >= 0)
		return id;
	struct hs_mem m = { &j->vm, target_mem_read, &j->memfd, NULL, NULL, NULL, HS_ARM64 };
	char name[HS_NAME_MAX + 16], text[HS_NAME_MAX];
	uint32_t now;
	struct frame_info fi = { .kind = "java", .module = "[java]" };
	if (r->flags & HS_R_LOST) {
		fi = (struct frame_info){ .function = "[java] <frames not walked>", .kind = "unknown" };
	} else if (r->flags & HS_R_STUB) {
		snprintf(name, sizeof(name), "[jvm] %s", hs_blob_name(&m, r->addr, text, sizeof(text)) ? "stub" : text);
		fi = (struct frame_info){ .function = name, .kind = "jit", .module = "[jvm]" };
	} else if (r->stamp && (fi.function = learned(j, r->addr, r->stamp))) {
		/* named by the unwinder when it walked the frame */
	} else if (r->stamp && !hs_method_stamp(&m, r->addr, &now) && now == r->stamp &&
		   hs_method_name(&m, r->addr, text, sizeof(text)) == 0) {
		fi.function = text;
	} else {
		/* unloaded by the end of the window, or its memory holds another method now (its stamp
		 * differs): said so, never guessed */
		fi = (struct frame_info){ .function = "[java] <method gone>", .kind = "unknown", .address = r->addr };
	}
	id = out_frame_id(&fi);
	strmap_put(&j->frames, key, id);
	return id;
}

/* The section's records, checked: nrec of them, or 0 when the section is not a HotSpot one. */
static size_t records(const void *section, size_t len, struct hs_record *rec)
{
	struct interp_section_hdr h;
	if (!section || len < sizeof(h))
		return 0;
	memcpy(&h, section, sizeof(h));
	if (h.kind != INTERP_HOTSPOT || h.len > len || h.nframes > HS_MAX_RECORDS ||
	    h.len < sizeof(h) + (size_t)h.nframes * sizeof(struct hs_record))
		return 0;
	memcpy(rec, (const uint8_t *)section + sizeof(h), h.nframes * sizeof(struct hs_record));
	return h.nframes;
}

size_t hs_merge(int pid, const void *section, size_t len, const int *native, size_t n, int *out, size_t cap)
{
	struct hs_record rec[HS_MAX_RECORDS];
	size_t nrec = records(section, len, rec), o = 0;
	struct jvm *j = nrec ? open_vm(pid) : NULL;
	if (!j || !j->ok)
		nrec = 0;
	/* native is root first; a record's native_index counts from the leaf. Each physical frame's
	 * records are innermost first: written in reverse, so the outermost (its own method) comes
	 * first. */
	for (size_t i = 0; i < n; i++) {
		size_t leaf_index = n - 1 - i, first = nrec, last = nrec;
		for (size_t r = 0; r < nrec; r++)
			if (rec[r].native_index == leaf_index) {
				if (first == nrec)
					first = r;
				last = r;
			}
		if (first == nrec) {
			if (o < cap)
				out[o++] = native[i];
			continue;
		}
		for (size_t r = last + 1; r-- > first;)
			if (rec[r].native_index == leaf_index && o < cap)
				out[o++] = frame_for(j, &rec[r]);
	}
	return o;
}

void hs_count(int pid, const void *section, size_t len, double value)
{
	struct jvm *j = find(pid);
	if (!j)
		return;
	struct hs_record rec[HS_MAX_RECORDS];
	size_t nrec = records(section, len, rec);
	j->samples += value;
	bool java = false;
	for (size_t r = 0; r < nrec; r++) {
		if (rec[r].flags & HS_R_LOST)
			j->lost[rec[r].why < HS_LOST__COUNT ? rec[r].why : HS_LOST_READ] += value;
		else
			java = true;
	}
	j->with_java += java ? value : 0;
}

size_t hs_notes(const char **notes, size_t cap)
{
	static char *texts[HS_MAX_NOTES];
	size_t n = 0;
	for (size_t i = 0; i < njvms && n < cap && n < HS_MAX_NOTES; i++) {
		struct jvm *j = open_vm(jvms[i].pid);
		char buf[512];
		if (!j->ok) {
			snprintf(buf, sizeof(buf), "java frames: unsupported JVM (pid %d): %s; its stacks are native only", j->pid,
				 j->why[0] ? j->why : "not recognised");
		} else {
			double lost = 0;
			int worst = 0;
			for (int k = 1; k < HS_LOST__COUNT; k++) {
				lost += j->lost[k];
				if (j->lost[k] > j->lost[worst])
					worst = k;
			}
			if (lost <= 0)
				continue;
			snprintf(buf, sizeof(buf), "java frames (pid %d): %.0f of %.0f cpu samples (%.1f%%) stop at a Java frame that "
				 "could not be walked, mostly for %s; the frames beyond are [java] <frames not walked>", j->pid,
				 lost, j->samples, j->samples > 0 ? 100.0 * lost / j->samples : 0.0, LOST_TEXT[worst]);
		}
		free(texts[n]);
		texts[n] = strdup(buf);
		if (texts[n])
			notes[n] = texts[n], n++;
	}
	return n;
}
