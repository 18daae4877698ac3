/* The unwinder child's work (unwind_child.h): per-process libdwfl state built from the mappings
 * the parent passes, unwinding of each stack snapshot over the files' CFI, aggregation.
 *
 * Tables and execve. A process's executable mappings come as tables, each read by the parent at a
 * known time (umsg.read_ns) on the clock of the samples' time_ns, and each of one image: the exec
 * generation (umsg.gen) the process was at, as every sample carries its own (sample_hdr.gen). Each
 * image has its own state (mappings, files, libdwfl), so two images at the same addresses never
 * share CFI. Samples reach the child through the ring buffer and tables through the socket, so one
 * can overtake the other; within an image a table is therefore used from the first sample taken
 * after it was read. A sample of an image whose table has not come yet (the parent reads maps
 * every 250 ms) is held back (unwind_park.h) until a table of that image or a later one arrives,
 * then unwound (gen_pick.h). Without holding, a worker that exec'd every 0.4 s lost an eighth to a
 * third of its samples to [truncated]: those taken between its exec and the parent's next look at
 * its maps. */
#include "unwind_child.h"
#include "delta_walk.h"
#include "delta_table.h"
#include "gen_pick.h"
#include "hs_child.h"
#include "monoclock.h"
#include "unwind_park.h"
#include "unwind_wire.h"
#include <linux/types.h>
#include "ptop.h"
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct umap {
	uint64_t start, end;
	bool vdso; /* UMAP_VDSO: a table holds one per image the process has had (the parent keeps them) */
};

#if defined(__aarch64__)
/* User addresses are below 2^48 (4 KiB pages, Debian's and most distributions' arm64 kernels); the
 * bits above hold a pointer-authentication code when the value was signed. */
#define ARM64_USER_VA_MASK ((1ull << 48) - 1)
#endif

struct maptable {
	struct umap *v;
	size_t n, cap;
	uint64_t read_ns;
};

/* One image of a process (pid, exec generation). */
struct uproc {
	int pid;
	uint32_t gen;
	Dwfl *dwfl;
	bool attached;
	struct maptable table; /* what samples are unwound against */
	/* A table read later than `table`: used from the first sample taken after its read, or for a
	 * sample whose pc `table` does not hold (a library mapped just before it, read just after). */
	struct maptable next;
	bool filling_next; /* between MAPS_BEGIN and MAPS_END: MAPs go to `next` */
	uint32_t retired_below; /* the images of pid below this generation are gone (uproc_retire) */
	bool next_ready;
	struct file_id { /* a file at one load address (a library unmapped and mapped again elsewhere) */
		dev_t dev;
		ino_t ino;
		uint64_t base;
	} *files;
	size_t nfiles;
};

static bool debug; /* PTOP_DEBUG: why a stack ended early, or a file gave no CFI, on stderr */
/* How far the Java walks lag their samples (README "Java frames": the race they must survive),
 * for PTOP_DEBUG: samples with Java frames, those walked over 100 ms and 1 s after, the longest (ns) */
static uint64_t java_walks, java_lag_100ms, java_lag_1s, java_lag_max;
/* PTOP_UNWIND_CHECK: every sample the stack deltas walk is unwound by libdwfl too, and a
 * difference counted (and printed with PTOP_DEBUG); libdwfl's frames are kept. */
static bool check_deltas;
static uint64_t delta_walked, delta_fell_back, delta_differed;
static struct uproc *uprocs;
static size_t nuprocs;
/* Out of memory: what could not be kept is dropped and counted, never half-written (uwc_dropped). */
static uint64_t maps_dropped, samples_oom[P__COUNT];
/* Samples of an exec'd process that could not be held (park_hold: bound or memory): unwound at once. */
static uint64_t samples_unheld[P__COUNT];

/* realloc of the array whose pointer is at p, to n elements; when it fails the pointer (and its
 * block) stay as they were. memcpy: p points to a `T *`, not a `void *`. */
static bool grow(void *p, size_t n, size_t size)
{
	void *old;
	memcpy(&old, p, sizeof(old));
	void *q = n <= SIZE_MAX / size ? realloc(old, n * size) : NULL;
	if (!q)
		return false;
	memcpy(p, &q, sizeof(q));
	return true;
}

/* The image (pid, gen), created when create and there is none. */
static struct uproc *uproc_get(int pid, uint32_t gen, bool create)
{
	for (size_t i = 0; i < nuprocs; i++)
		if (uprocs[i].pid == pid && uprocs[i].gen == gen)
			return &uprocs[i];
	if (!create)
		return NULL;
	if (!grow(&uprocs, nuprocs + 1, sizeof(*uprocs)))
		return NULL;
	struct uproc *u = &uprocs[nuprocs++];
	memset(u, 0, sizeof(*u));
	u->pid = pid;
	u->gen = gen;
	for (size_t i = 0; i + 1 < nuprocs; i++) /* what its elder images know of the retired */
		if (uprocs[i].pid == pid && uprocs[i].retired_below > u->retired_below)
			u->retired_below = uprocs[i].retired_below;
	return u;
}

/* The image of pid that serves a sample of generation gen (gen_pick.h); NULL when none does.
 * *known: some image of pid is known (an earlier one), so its table is on its way. */
static struct uproc *uproc_for(int pid, uint32_t gen, bool *known)
{
	struct uproc *best = NULL;
	*known = false;
	for (size_t i = 0; i < nuprocs; i++)
		if (uprocs[i].pid == pid) {
			if (gen < uprocs[i].retired_below)
				return NULL; /* a late sample of a retired image: no image names it */
			*known = true;
			if (uprocs[i].table.n == 0 && uprocs[i].filling_next)
				continue; /* its first table is still arriving */
			if (gen_better(gen, uprocs[i].gen, best != NULL, best ? best->gen : 0))
				best = &uprocs[i];
		}
	return best;
}

/* The images of pid (all, or those of a generation below `below`). Moves other entries. */
static void uproc_drop(int pid, bool all, uint32_t below)
{
	for (size_t i = 0; i < nuprocs;) {
		struct uproc *u = &uprocs[i];
		if (u->pid != pid || (!all && u->gen >= below)) {
			i++;
			continue;
		}
		delta_release(u->dwfl);
		if (u->dwfl)
			dwfl_end(u->dwfl); /* and the files it was given */
		free(u->table.v);
		free(u->next.v);
		free(u->files);
		*u = uprocs[--nuprocs];
	}
}

static void uproc_forget(int pid)
{
	uproc_drop(pid, true, 0);
}

/* A process's samples come through the ring buffer in the order they were taken, so once one of
 * generation gen comes, none of an image two or more generations older will (one is kept for the
 * samples of the exec's own moment): that image's files and CFI go, so that a process that execs
 * all through a long window does not pile up descriptors. */
static void uproc_retire(int pid, uint32_t gen)
{
	if (gen < 2)
		return;
	bool newer = false; /* kept: while none is, the old image is what says the process is known */
	for (size_t i = 0; i < nuprocs && !newer; i++)
		newer = uprocs[i].pid == pid && uprocs[i].gen >= gen - 1;
	if (!newer)
		return;
	uproc_drop(pid, false, gen - 1);
	for (size_t i = 0; i < nuprocs; i++)
		if (uprocs[i].pid == pid && uprocs[i].retired_below < gen - 1)
			uprocs[i].retired_below = gen - 1;
}

static bool in_table(const struct maptable *t, uint64_t a)
{
	for (size_t i = 0; i < t->n; i++)
		if (a >= t->v[i].start && a < t->v[i].end)
			return true;
	return false;
}

/* `next` becomes the table (the old one's array is reused for the one after). */
static void promote_next(struct uproc *u)
{
	struct maptable old = u->table;
	u->table = u->next;
	u->next = old;
	u->next.n = 0;
	u->next_ready = false;
}

/* Where the file's vaddr 0 lies in the process: the executable PT_LOAD whose page-aligned file
 * offset is the mapping's offset is mapped at `start`. */
static int load_base(int fd, uint64_t start, uint64_t off, uint64_t *base)
{
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e)
		return -1;
	size_t nph = 0;
	int rc = -1;
	GElf_Ehdr eh;
	if (gelf_getehdr(e, &eh) && eh.e_type == ET_EXEC) {
		*base = 0;
		rc = 0;
	} else if (elf_getphdrnum(e, &nph) == 0) {
		for (size_t i = 0; i < nph && rc; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			/* The executable segment whose first page is the mapping's: with lld's layout the
			 * read-only segment before it can share that page, so containment is not enough. */
			uint64_t pg = ph.p_offset & ~4095ull;
			if ((ph.p_flags & PF_X) && off == pg) {
				*base = start - (off - pg) - (ph.p_vaddr & ~4095ull);
				rc = 0;
			}
		}
	}
	elf_end(e);
	return rc;
}

/* Where .eh_frame has no rule for a pc, libdwfl turns to .debug_frame, in the file or in its
 * separate debug file: found here by build-id on the host (/usr/lib/debug/.build-id/xx/rest.debug,
 * e.g. Debian's -dbg and -dbgsym packages), opened by this unprivileged child; the path is the
 * module's own build-id, so a file there describes exactly that binary, the target's included.
 * libdwfl calls this without checking for NULL whenever a pc has no .eh_frame entry (musl's libc
 * names a debug file), so it must exist. Never debuginfod: nothing leaves the machine. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	(void)userdata, (void)modname, (void)base, (void)file_name, (void)debuglink_file, (void)debuglink_crc;
	*debuginfo_file_name = NULL;
	const unsigned char *id;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &id, &vaddr);
	if (n < 2 || n > 64)
		return -1;
	char path[64 + 2 * 64 + 16];
	int off = snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (int i = 1; i < n; i++)
		off += snprintf(path + off, sizeof(path) - (size_t)off, "%02x", id[i]);
	snprintf(path + off, sizeof(path) - (size_t)off, ".debug");
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	*debuginfo_file_name = strdup(path);
	return fd; /* libdwfl checks the build-id of what it reads against the module's */
}

static const Dwfl_Callbacks offline_cb = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
};

/* The snapshot being unwound (libdwfl calls back synchronously). */
static struct {
	const struct sample_hdr *h;
	const uint8_t *stack;
	uint64_t sp;
	struct uproc *u;
	const struct maptable *t; /* u's table this sample is unwound against */
	uint64_t pcs[PTOP_MAX_UNWIND_DEPTH];
	uint32_t n;
	bool truncated;
	/* The walk starts in the caller, and the sample's pc is recorded as the leaf: for an alloc
	 * sample, taken on a function's first instruction, where the return address is where the ABI
	 * puts it whatever the function's CFI (musl's allocator has none); on arm64, for a pc in a
	 * vDSO function without CFI (vdso_leaf_without_cfi). */
	bool from_caller;
	uint64_t leaf_pc;
	bool in_execve; /* SAMPLE_F_IN_EXECVE: not unwound */
	/* Java frames (unwind_user): the JVM of this process, where libdwfl stopped at its code
	 * cache, and where native unwinding resumes after the Java frames */
	struct hs_proc *jvm;
	bool java_pending, java_leaf, resumed, resumed_first;
	struct hs_regs java;
	struct hs_walk_out jout;
	uint8_t jsection[PTOP_INTERP_MAX];
} cur;

static pid_t next_thread(Dwfl *d, void *a, void **targ)
{
	(void)d, (void)a, (void)targ;
	return 0;
}

static bool get_thread(Dwfl *d, pid_t tid, void *a, void **targ)
{
	(void)d, (void)tid;
	*targ = a;
	return true;
}

static bool memory_read(Dwfl *d, Dwarf_Addr addr, Dwarf_Word *result, void *a)
{
	(void)d, (void)a;
	/* sp and the addresses the CFI computes are the target's values: no sum may wrap. */
	if (addr < cur.sp || addr - cur.sp > cur.h->stack_len || cur.h->stack_len - (addr - cur.sp) < 8)
		return false;
	memcpy(result, cur.stack + (addr - cur.sp), 8);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *t, void *a)
{
	(void)a;
	const uint64_t *p = (const uint64_t *)cur.h->regs;
#if defined(__x86_64__)
	/* pt_regs order: r15 r14 r13 r12 bp bx r11 r10 r9 r8 ax cx dx si di orig_ax ip cs flags sp ss;
	 * DWARF order: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip. */
	Dwarf_Word r[17] = { p[10], p[12], p[11], p[5], p[13], p[14], p[PTOP_REG_FP], p[PTOP_REG_SP],
			     p[9],  p[8],  p[7],  p[6], p[3],  p[2],  p[1], p[0], p[PTOP_REG_PC] };
	if (cur.resumed) { /* native code that called Java frames: only its pc, sp and fp are known */
		dwfl_thread_state_register_pc(t, cur.java.pc);
		Dwarf_Word fp_sp[2] = { cur.java.fp, cur.java.sp };
		return dwfl_thread_state_registers(t, 6, 2, fp_sp);
	}
	if (cur.from_caller) { /* the caller's frame: pc = the return address at [sp], sp above it */
		uint64_t ret;
		memcpy(&ret, cur.stack, 8);
		r[7] = p[PTOP_REG_SP] + 8;
		r[16] = ret;
	}
	dwfl_thread_state_register_pc(t, r[16]);
	return dwfl_thread_state_registers(t, 0, 17, r);
#elif defined(__aarch64__)
	/* user_pt_regs: x0..x30, sp, pc; DWARF: x0..x30 = 0..30, sp = 31. */
	Dwarf_Word r[32];
	for (int i = 0; i < 32; i++)
		r[i] = p[i];
	if (cur.resumed) { /* native code that called Java frames: only its pc, sp and fp are known */
		dwfl_thread_state_register_pc(t, cur.java.pc);
		return dwfl_thread_state_registers(t, 29, 1, &cur.java.fp) &&
		       dwfl_thread_state_registers(t, 31, 1, &cur.java.sp);
	}
	/* from_caller: the caller, at the link register (PAC bits cleared: a function that signs it,
	 * as arm64's vDSO does, holds it signed until its return) */
	dwfl_thread_state_register_pc(t, cur.from_caller ? p[PTOP_REG_LR] & ARM64_USER_VA_MASK : p[PTOP_REG_PC]);
	return dwfl_thread_state_registers(t, 0, 32, r);
#else
#error "unsupported architecture"
#endif
}

static const Dwfl_Thread_Callbacks thread_cb = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

#if defined(__aarch64__)
/* Whether no CFI covers pc: JIT code (no module), or a file's code its .eh_frame leaves out. */
static bool no_cfi_at(struct uproc *u, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(u->dwfl, pc);
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = mod ? dwfl_module_eh_cfi(mod, &bias) : NULL;
	Dwarf_Frame *frame = NULL;
	bool cfi_here = cfi && dwarf_cfi_addrframe(cfi, pc - bias, &frame) == 0;
	free(frame);
	return !cfi_here;
}

/* arm64's vDSO (6.1 among others) has no CFI for its C functions (clock_gettime & co.): leaves
 * that set up no frame and return through the link register. elfutils' frame-pointer fallback
 * then reads the caller's frame pointer, which a program built without them does not keep, and the
 * stack ended at [vdso]. Such a pc is walked from the caller instead (cur.from_caller). */
static bool vdso_leaf_without_cfi(struct uproc *u, const struct maptable *t, uint64_t pc)
{
	bool vdso = false;
	for (size_t i = 0; i < t->n && !vdso; i++)
		vdso = t->v[i].vdso && pc >= t->v[i].start && pc < t->v[i].end;
	return vdso && no_cfi_at(u, pc);
}

/* elfutils' arm64 frame-pointer step (code without CFI: V8's, any JIT's) takes a frame's caller
 * from the link register and the caller's caller from [fp + 8]: right for a leaf that pushed no
 * frame record, but a leaf that did (every V8 function, past its first two instructions) and made
 * no call since still holds in the link register the return address its record keeps, and the
 * stack showed its caller twice (the second an [unknown] beside V8's frames). The repeat is the
 * third frame at the second's pc, both frames before it without CFI; a recursion at one call site
 * cannot repeat there, as the leaf would then be the callee that pushed the record. */
static bool lr_caller_repeated(uint64_t look)
{
	return cur.n == 2 && !cur.from_caller && !cur.resumed && look == cur.pcs[1] && no_cfi_at(cur.u, cur.pcs[0]) &&
	       no_cfi_at(cur.u, cur.pcs[1]);
}
#endif

static int frame_cb(Dwfl_Frame *st, void *a)
{
	(void)a;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(st, &pc, &activation))
		return DWARF_CB_ABORT;
	if (pc == 0)
		return DWARF_CB_ABORT;
	if (cur.from_caller && cur.n == 0) {
		/* the sample's pc itself, then the caller's call site (pc is a return address) */
		cur.pcs[cur.n++] = cur.leaf_pc;
		activation = false;
	}
	if (cur.resumed_first) { /* the native caller of Java frames: pc is a return address */
		cur.resumed_first = false;
		activation = false;
	}
	if (hs_child_in_code(cur.jvm, pc)) {
		/* Java frames: no CFI, no frame pointer; the HotSpot walker takes them (unwind_user) */
#if defined(__x86_64__)
		const unsigned fp_reg = 6, sp_reg = 7;
#else
		const unsigned fp_reg = 29, sp_reg = 31;
#endif
		Dwarf_Word sp, fp, lr = 0;
#if defined(__aarch64__)
		/* the leaf's link register: where a compiled frame not built yet keeps its return address */
		if (activation && dwfl_frame_reg(st, 30, &lr) != 0)
			lr = 0;
		lr &= ARM64_USER_VA_MASK;
#endif
		if (dwfl_frame_reg(st, sp_reg, &sp) == 0 && dwfl_frame_reg(st, fp_reg, &fp) == 0) {
			cur.java = (struct hs_regs){ pc, sp, fp, activation ? lr : 0, !activation };
			cur.java_leaf = activation;
			cur.java_pending = true;
		} else {
			cur.truncated = true;
		}
		return DWARF_CB_ABORT;
	}
	uint64_t look = activation ? pc : pc - 1;
	/* A pc in no executable mapping is a bad rule or stale data: the stack ends before it. */
	if (!in_table(cur.t, look) || cur.n == PTOP_MAX_UNWIND_DEPTH) {
		cur.truncated = true;
		return DWARF_CB_ABORT;
	}
#if defined(__aarch64__)
	if (lr_caller_repeated(look))
		return DWARF_CB_OK;
#endif
	cur.pcs[cur.n++] = look;
	return DWARF_CB_OK;
}

static int stack_word(void *ctx, uint64_t addr, uint64_t *v)
{
	(void)ctx;
	Dwarf_Word w;
	if (!memory_read(NULL, addr, &w, NULL))
		return -1;
	*v = w;
	return 0;
}

/* The user stack: native frames through libdwfl; where a pc is in a JVM's code cache, its Java
 * frames through the HotSpot walker, then native again from the native code that called them. */
static int unwind_user(struct uproc *u)
{
	cur.resumed = false;
	for (int round = 0;; round++) {
		cur.java_pending = false;
		int rc = dwfl_getthread_frames(u->dwfl, (pid_t)cur.h->tid, frame_cb, NULL);
		if (!cur.java_pending)
			return rc;
		if (round == 16 || !hs_child_walk(cur.jvm, &cur.java, cur.java_leaf, cur.h->time_ns, cur.pcs, &cur.n, PTOP_MAX_UNWIND_DEPTH,
						  stack_word, NULL, &cur.jout)) {
			cur.truncated = true;
			return 0;
		}
		cur.resumed = cur.resumed_first = true;
	}
}

static void child_map(const struct umsg *m, int fd)
{
	struct uproc *u = m->gen <= UINT32_MAX ? uproc_get(m->pid, (uint32_t)m->gen, true) : NULL;
	struct maptable *t = u && u->filling_next ? &u->next : u ? &u->table : NULL;
	size_t cap = t && t->n == t->cap ? (t->cap ? t->cap * 2 : 32) : 0;
	if (!t || (cap && !grow(&t->v, cap, sizeof(*t->v)))) {
		/* Without it, samples in its range end there ([truncated]): counted, not a crash. */
		maps_dropped++;
		if (fd >= 0)
			close(fd);
		return;
	}
	if (cap)
		t->cap = cap;
	t->v[t->n++] = (struct umap){ m->start, m->end, (m->flags & UMAP_VDSO) != 0 };
	if (fd < 0)
		return; /* anonymous executable memory (JIT): frame pointers, through elfutils' fallback */
	struct stat st;
	uint64_t base;
	if (fstat(fd, &st) || load_base(fd, m->start, m->off, &base)) {
		if (debug)
			fprintf(stderr, "ptop: unwinder: pid %d, %#llx-%#llx: no load address (not an ELF file, or no "
				"executable segment at offset %#llx)\n", m->pid, (unsigned long long)m->start,
				(unsigned long long)m->end, (unsigned long long)m->off);
		close(fd);
		return;
	}
	for (size_t i = 0; i < u->nfiles; i++)
		if (u->files[i].dev == st.st_dev && u->files[i].ino == st.st_ino && u->files[i].base == base) {
			close(fd);
			return;
		}
	if (!grow(&u->files, u->nfiles + 1, sizeof(*u->files))) {
		maps_dropped++; /* its range is known, its CFI is not: frame pointers only there */
		close(fd);
		return;
	}
	u->files[u->nfiles++] = (struct file_id){ st.st_dev, st.st_ino, base };
	if (!u->dwfl)
		u->dwfl = dwfl_begin(&offline_cb);
	if (!u->dwfl) {
		close(fd);
		return;
	}
	char name[64];
	snprintf(name, sizeof(name), "m%zu", u->nfiles);
	dwfl_report_begin_add(u->dwfl);
	if (!dwfl_report_elf(u->dwfl, name, name, fd, base, false)) {
		if (debug)
			fprintf(stderr, "ptop: unwinder: pid %d, %#llx-%#llx: libdwfl refused the file: %s\n", m->pid,
				(unsigned long long)m->start, (unsigned long long)m->end, dwfl_errmsg(-1));
		close(fd);
	}
	dwfl_report_end(u->dwfl, NULL, NULL);
	if (!u->attached)
		u->attached = dwfl_attach_state(u->dwfl, NULL, u->pid, &thread_cb, NULL);
}

/* ---- aggregation: open addressing over (key bytes) -> value */

struct entry {
	uint8_t *key;
	uint32_t klen;
	double value;
	double events;
	bool awaits_wake; /* its records' values come with wake records (SAMPLE_F_AWAITS_WAKE) */
};

static struct entry *entries;
static size_t nentries, entries_cap;
static int32_t *slots;
static size_t nslots;
static uint64_t unwind_failed, agg_lost[P__COUNT];
/* The aggregate's bound. A test build of ptop (Makefile: build/ptop-smallagg) sets a tiny one so
 * that a live capture overflows it; the shipped ptop always has the default. */
#ifndef PTOP_UNWIND_MAX_ENTRIES
#define PTOP_UNWIND_MAX_ENTRIES (1u << 18)
#endif
#define MAX_ENTRIES PTOP_UNWIND_MAX_ENTRIES
#define VALUE_MAX 1.8e19 /* below 2^64 */

static uint64_t fnv(const uint8_t *b, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

/* -1: the sample cannot be aggregated (MAX_ENTRIES reached, or out of memory: *oom). */
static int32_t agg_find(const uint8_t *key, uint32_t klen, bool *oom)
{
	*oom = false;
	if (nentries * 2 >= nslots) {
		size_t ns = nslots ? nslots * 2 : 4096;
		int32_t *s = malloc(ns * sizeof(int32_t));
		if (s) {
			memset(s, 0xff, ns * sizeof(int32_t));
			for (size_t i = 0; i < nentries; i++) {
				size_t j = fnv(entries[i].key, entries[i].klen) & (ns - 1);
				while (s[j] >= 0)
					j = (j + 1) & (ns - 1);
				s[j] = (int32_t)i;
			}
			free(slots);
			slots = s;
			nslots = ns;
		} /* else the old table goes on, fuller: lookups stay right while it has a free slot */
	}
	if (nslots == 0) {
		*oom = true;
		return -1;
	}
	/* nentries < nslots always (see the insert below): the probe meets a free slot. */
	size_t j = fnv(key, klen) & (nslots - 1);
	while (slots[j] >= 0) {
		struct entry *e = &entries[slots[j]];
		if (e->klen == klen && memcmp(e->key, key, klen) == 0)
			return slots[j];
		j = (j + 1) & (nslots - 1);
	}
	if (nentries >= MAX_ENTRIES)
		return -1;
	size_t cap = nentries == entries_cap ? (entries_cap ? entries_cap * 2 : 1024) : entries_cap;
	uint8_t *k = malloc(klen);
	/* A free slot stays behind (a rehash that failed leaves the table fuller than half). */
	if (!k || nentries + 1 >= nslots || (cap != entries_cap && !grow(&entries, cap, sizeof(*entries)))) {
		free(k);
		*oom = true;
		return -1;
	}
	entries_cap = cap;
	entries[nentries] = (struct entry){ k, klen, 0, 0, false };
	memcpy(k, key, klen);
	slots[j] = (int32_t)nentries;
	return (int32_t)nentries++;
}

/* Pending offcpu blocks: tid -> (seq, entry); one per thread, overwritten by its next block. */
struct pend {
	uint32_t tid;
	uint64_t seq;
	int32_t entry;
};
#define PEND_SLOTS (1u << 17)
static struct pend *pend;

static struct pend *pend_slot(uint32_t tid)
{
	size_t j = (tid * 2654435761u) & (PEND_SLOTS - 1);
	for (size_t k = 0; k < PEND_SLOTS; k++, j = (j + 1) & (PEND_SLOTS - 1))
		if (pend[j].tid == tid || pend[j].tid == 0)
			return &pend[j];
	return NULL;
}

static void note_java_lag(uint64_t sampled_ns)
{
	uint64_t now = debug ? mono_ns() : 0;
	if (!now)
		return;
	uint64_t lag = now > sampled_ns ? now - sampled_ns : 0;
	java_walks++;
	java_lag_100ms += lag > 100000000ull;
	java_lag_1s += lag > 1000000000ull;
	java_lag_max = lag > java_lag_max ? lag : java_lag_max;
}

static uint8_t keybuf[sizeof(struct unwound_hdr) + PTOP_MAX_UNWIND_DEPTH * 8 + PTOP_INTERP_MAX];

static int32_t aggregate(uint32_t axis, const struct sample_hdr *h, const uint8_t *interp, bool *oom)
{
	uint32_t interp_len = h->interp_len;
	if (!interp_len && cur.jout.n) { /* Java frames: the section the walk wrote */
		interp_len = (uint32_t)hs_child_section(&cur.jout, cur.jsection, sizeof(cur.jsection));
		interp = cur.jsection;
		note_java_lag(h->time_ns);
	}
	/* A kernel stack id the parent could not look up is no kernel stack (the parent refuses the
	 * record, and everything after it, otherwise). */
	int32_t kstack = h->kstack < PTOP_MAX_STACKS ? h->kstack : -1;
	struct unwound_hdr k = { axis, h->tgid, kstack, cur.truncated, cur.n, interp_len, cur.in_execve ? 0 : h->gen,
				 cur.in_execve, (h->flags & SAMPLE_F_SEQ_IN_KEY) ? h->seq : 0, 0, 0 };
	memcpy(keybuf, &k, sizeof(k));
	/* leaf first as unwound; the parent reverses */
	memcpy(keybuf + sizeof(k), cur.pcs, cur.n * 8ull);
	memcpy(keybuf + sizeof(k) + cur.n * 8ull, interp, interp_len);
	return agg_find(keybuf, (uint32_t)(sizeof(k) + cur.n * 8ull + interp_len), oom);
}

/* A sum of a sample's value into an aggregate, capped where the parent can still hold it in a u64. */
static void add_capped(double *sum, uint64_t value)
{
	double v = *sum + (double)value;
	*sum = v < VALUE_MAX ? v : VALUE_MAX;
}

/* How many samples a record counts for, aggregated or dropped: its value where it says so
 * (SAMPLE_F_COUNTS: a cpu sample the budget kept stands for N), else one. */
static uint64_t record_count(const struct sample_hdr *h)
{
	return (h->flags & SAMPLE_F_COUNTS) ? h->value : 1;
}

static void (*poll_messages)(void);

static void unwind_record(const void *data, size_t size, bool may_hold);

/* The held samples of a process, unwound now (against its table, whatever it is by then). */
static void unwind_held(const void *rec, size_t size)
{
	unwind_record(rec, size, false);
}

/* A table has just arrived whole in `next`: an image's first is its table at once; the samples
 * held for it (of its generation or an earlier one never read) are unwound now. */
static void on_table(struct uproc *u)
{
	u->next_ready = true;
	if (u->table.n == 0)
		promote_next(u);
	park_release(u->pid, u->gen, unwind_held);
}

static void unwind_libdwfl(struct uproc *u, const struct sample_hdr *h)
{
	cur.n = 0;
	cur.truncated = false;
	int rc = unwind_user(u);
	if (rc != 0) {
		if (debug && !cur.truncated)
			fprintf(stderr, "ptop: unwinder: pid %u after %u frames (last pc %#lx): %s\n", h->tgid, cur.n,
				cur.n ? (unsigned long)cur.pcs[cur.n - 1] : 0ul, dwfl_errmsg(-1));
		cur.truncated = true;
	}
}

static uint32_t first_difference(const uint64_t *a, uint32_t na, const uint64_t *b, uint32_t nb)
{
	uint32_t i = 0;
	while (i < na && i < nb && a[i] == b[i])
		i++;
	return i;
}

static bool mapped_in_cur(uint64_t pc, const void *t)
{
	return in_table(t, pc);
}

/* The stack deltas' walk (delta_walk.h); false when the sample needs libdwfl (in a JVM, too: the
 * HotSpot walker takes its Java frames from libdwfl's walk, unwind_user). */
static bool walk_deltas(struct uproc *u, const struct sample_hdr *h)
{
	if (cur.jvm) {
		delta_fell_back++;
		return false;
	}
	const uint64_t *r = (const uint64_t *)h->regs;
	struct delta_snapshot s = { .stack = cur.stack, .sp0 = cur.sp, .len = h->stack_len, .pc = r[PTOP_REG_PC],
				    .sp = r[PTOP_REG_SP], .fp = r[PTOP_REG_FP], .from_caller = cur.from_caller,
				    .leaf_pc = cur.leaf_pc };
#if defined(__aarch64__)
	s.lr = r[PTOP_REG_LR];
#endif
	uint32_t n;
	bool truncated;
	if (delta_walk(u->dwfl, &s, mapped_in_cur, cur.t, cur.pcs, PTOP_MAX_UNWIND_DEPTH, &n, &truncated) != DELTA_WALK_DONE) {
		delta_fell_back++;
		return false;
	}
	delta_walked++;
	cur.n = n;
	cur.truncated = truncated;
	if (!check_deltas)
		return true;
	static uint64_t pcs[PTOP_MAX_UNWIND_DEPTH];
	memcpy(pcs, cur.pcs, n * sizeof(*pcs));
	unwind_libdwfl(u, h);
	if (cur.n != n || cur.truncated != truncated || memcmp(pcs, cur.pcs, n * sizeof(*pcs)) != 0) {
		delta_differed++;
		if (debug)
			fprintf(stderr, "ptop: unwinder: pid %u: stack deltas gave %u frames%s, libdwfl %u%s (first difference at %u)\n",
				h->tgid, n, truncated ? " truncated" : "", cur.n, cur.truncated ? " truncated" : "",
				first_difference(pcs, n, cur.pcs, cur.n));
	}
	return true;
}

static void unwind_record(const void *data, size_t size, bool may_hold)
{
	if (size < sizeof(struct sample_hdr))
		return;
	const struct sample_hdr *h = data;
	if (h->flags & SAMPLE_F_WAKE) {
		/* tid 0 marks a free slot, never a blocked thread */
		struct pend *p = h->tid ? pend_slot(h->tid) : NULL;
		if (p && p->tid == h->tid && p->seq == h->seq && p->entry >= 0) {
			add_capped(&entries[p->entry].value, h->value); /* ns blocked */
			entries[p->entry].events += entries[p->entry].events < VALUE_MAX;
			p->entry = -1;
		}
		return;
	}
	if (h->kind >= P__COUNT || h->interp_len > PTOP_INTERP_MAX || sizeof(*h) + (size_t)h->interp_len + h->stack_len > size)
		return;
	uint32_t axis = h->kind; /* the probe that sent it: its flags say how it adds up (ptop.h) */
	bool in_execve = (h->flags & SAMPLE_F_IN_EXECVE) != 0;
	bool known;
	if (!in_execve)
		uproc_retire((int)h->tgid, h->gen);
	struct uproc *u = in_execve ? NULL : uproc_for((int)h->tgid, h->gen, &known);
	if (!in_execve && may_hold && (!u || !u->attached)) {
		if (poll_messages)
			poll_messages(); /* its mappings may be in flight */
		u = uproc_for((int)h->tgid, h->gen, &known);
	}
	if (!in_execve && !u && known) {
		/* A newer image than any table yet: held until one comes; at the end, or past the bound,
		 * it has no image to be unwound in (an earlier one's addresses may name other code). */
		if (may_hold) {
			if (park_hold((int)h->tgid, h->gen, data, size))
				return;
			samples_unheld[axis] += record_count(h);
		}
	}
	if (u && u->next_ready && u->next.read_ns <= h->time_ns)
		promote_next(u);

	cur.n = 0;
	cur.truncated = false;
	cur.in_execve = in_execve;
	cur.h = h;
	cur.u = u;
	cur.stack = (const uint8_t *)data + sizeof(*h);
	cur.sp = h->regs[PTOP_REG_SP];
	cur.from_caller = (h->flags & SAMPLE_F_AT_ENTRY) && h->stack_len >= 8;
	cur.leaf_pc = h->regs[PTOP_REG_PC];
	cur.t = NULL;
	cur.jvm = u ? hs_child_proc((int)h->tgid) : NULL;
	cur.jout.n = 0;
	if (u) {
		cur.t = &u->table;
		if (u->next_ready && !in_table(&u->table, cur.leaf_pc) && in_table(&u->next, cur.leaf_pc))
			cur.t = &u->next;
		/* The leaf was running, so its mapping existed: one mapped after the table was read (a
		 * library the loader maps just after an execve, fresh JIT code). Held for the image's next
		 * table rather than cut to nothing ([truncated]); the parent sends one within a scan of the
		 * change, or at the window's end. Released with may_hold false, so held once at most. */
		if (may_hold && !in_execve && u->attached && h->stack_len > 0 && !in_table(cur.t, cur.leaf_pc) &&
		    park_hold((int)h->tgid, h->gen, data, size))
			return;
#if defined(__aarch64__)
		cur.from_caller = cur.from_caller || (u->attached && vdso_leaf_without_cfi(u, cur.t, cur.leaf_pc));
#endif
	}
	if (in_execve) {
		/* no user stack: the report names it (its kernel frames, under [in execve]) */
	} else if (u && u->attached && h->stack_len > 0) {
		if (!walk_deltas(u, h))
			unwind_libdwfl(u, h);
		if (cur.n == 0)
			unwind_failed++;
	} else {
		cur.truncated = true;
		unwind_failed++;
	}
	bool oom;
	int32_t e = aggregate(axis, h, (const uint8_t *)data + sizeof(*h) + h->stack_len, &oom);
	if (e < 0) {
		if (oom)
			samples_oom[axis] += record_count(h);
		else
			agg_lost[axis] += record_count(h);
		return;
	}
	if (h->flags & SAMPLE_F_AWAITS_WAKE) { /* a wait, counted when it ends (its wake record) */
		entries[e].awaits_wake = true;
		struct pend *p = pend_slot(h->tid);
		if (p)
			*p = (struct pend){ h->tid, h->seq, e };
	} else {
		add_capped(&entries[e].value, h->value);
		if (entries[e].events < VALUE_MAX)
			entries[e].events += (double)record_count(h);
	}
}

int uwc_sample(void *ctx, void *data, size_t size)
{
	(void)ctx;
	unwind_record(data, size, true);
	return 0;
}

bool uwc_message(const void *buf, size_t n, int fd)
{
	struct umsg m;
	if (n != sizeof(m)) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	memcpy(&m, buf, sizeof(m));
	if (m.type == MSG_MAP)
		child_map(&m, fd);
	else if (m.type == MSG_JVM_LIB)
		hs_child_lib(m.pid, fd, m.start, m.off);
	else if (m.type == MSG_JVM_MEM)
		hs_child_mem(m.pid, fd);
	else if (fd >= 0)
		close(fd);
	struct uproc *u = NULL;
	switch (m.type) {
	case MSG_GONE: /* a fresh state (the pid may be reused): what was held is of the one before */
		park_release(m.pid, UINT32_MAX, unwind_held);
		uproc_forget(m.pid);
		hs_child_forget(m.pid);
		if (m.gen <= UINT32_MAX && (u = uproc_get(m.pid, (uint32_t)m.gen, true)))
			u->table.read_ns = m.read_ns;
		break;
	case MSG_MAPS_BEGIN:
		if (m.gen <= UINT32_MAX && (u = uproc_get(m.pid, (uint32_t)m.gen, true))) {
			u->next.n = 0;
			u->next.read_ns = m.read_ns;
			u->filling_next = true;
			u->next_ready = false;
		}
		break;
	case MSG_MAPS_END:
		if (m.gen <= UINT32_MAX && (u = uproc_get(m.pid, (uint32_t)m.gen, false)) && u->filling_next) {
			u->filling_next = false;
			on_table(u);
		}
		break;
	}
	return m.type == MSG_STOP;
}

struct emit_ctx {
	void (*emit)(const void *rec, size_t len, void *arg);
	void *arg;
};

static void emit_name(int pid, uint64_t method, uint32_t stamp, const char *name, size_t len, void *arg)
{
	struct emit_ctx *e = arg;
	static uint8_t rec[sizeof(struct unwound_hdr) + sizeof(struct unwind_name) + UNWIND_NAME_MAX];
	struct unwind_name nm = { method, stamp, (uint32_t)(len < UNWIND_NAME_MAX ? len : UNWIND_NAME_MAX) };
	e->emit(rec, unwind_name_encode((uint32_t)pid, &nm, name, rec), e->arg);
}

void uwc_results(void (*emit)(const void *rec, size_t len, void *arg), void *arg)
{
	park_release(-1, UINT32_MAX, unwind_held); /* no table came for them: [truncated], counted */
	/* the names first: the parent has them when it merges the stacks' Java frames */
	struct emit_ctx e = { emit, arg };
	hs_child_names(emit_name, &e);
	if (debug && java_walks)
		fprintf(stderr, "ptop: unwinder: %llu samples with Java frames walked, %llu of them more than 100 ms after "
			"the sample, %llu more than 1 s, the longest %.0f ms after\n", (unsigned long long)java_walks,
			(unsigned long long)java_lag_100ms, (unsigned long long)java_lag_1s, (double)java_lag_max / 1e6);
	for (size_t i = 0; i < nentries; i++) {
		struct entry *e = &entries[i];
		struct unwound_hdr h;
		memcpy(&h, e->key, sizeof(h));
		if (e->awaits_wake && e->value <= 0)
			continue; /* blocked and never woken within the window */
		h.value = e->value;
		h.events = e->events;
		memcpy(e->key, &h, sizeof(h));
		emit(e->key, e->klen, arg);
	}
	if (debug || check_deltas)
		fprintf(stderr, "ptop: unwinder: %llu samples walked by stack deltas, %llu by libdwfl\n",
			(unsigned long long)delta_walked, (unsigned long long)delta_fell_back);
	if (check_deltas)
		fprintf(stderr, "ptop: unwinder: checked against libdwfl: %llu differed\n", (unsigned long long)delta_differed);
	struct unwind_trailer t;
	uwc_dropped(&t, NULL, NULL, NULL);
	uint8_t rec[sizeof(struct unwound_hdr) + UNWIND_TRAILER_COUNTS * 8];
	emit(rec, unwind_trailer_encode(&t, rec), arg);
}

int uwc_init(bool dbg, void (*poll)(void))
{
	debug = dbg;
	check_deltas = getenv("PTOP_UNWIND_CHECK") != NULL;
	poll_messages = poll;
	if (!pend)
		pend = calloc(PEND_SLOTS, sizeof(*pend));
	return pend ? 0 : -1;
}

void uwc_reset(void)
{
	park_clear();
	hs_child_reset();
	while (nuprocs)
		uproc_forget(uprocs[0].pid);
	free(uprocs);
	uprocs = NULL;
	for (size_t i = 0; i < nentries; i++)
		free(entries[i].key);
	free(entries);
	entries = NULL;
	nentries = entries_cap = 0;
	free(slots);
	slots = NULL;
	nslots = 0;
	unwind_failed = maps_dropped = 0;
	delta_walked = delta_fell_back = delta_differed = 0;
	memset(agg_lost, 0, sizeof(agg_lost));
	memset(samples_oom, 0, sizeof(samples_oom));
	memset(samples_unheld, 0, sizeof(samples_unheld));
	if (pend)
		memset(pend, 0, PEND_SLOTS * sizeof(*pend));
}

void uwc_dropped(struct unwind_trailer *t, uint64_t *full_total, uint64_t *no_memory_total, uint64_t *mappings_no_memory)
{
	t->failed = unwind_failed;
	uint64_t full = 0, oom = 0;
	for (int i = 0; i < P__COUNT; i++) {
		t->full[i] = agg_lost[i];
		t->no_memory[i] = samples_oom[i];
		t->unheld[i] = samples_unheld[i];
		full += agg_lost[i];
		oom += samples_oom[i];
	}
	if (full_total)
		*full_total = full;
	if (no_memory_total)
		*no_memory_total = oom;
	if (mappings_no_memory)
		*mappings_no_memory = maps_dropped;
}

void uwc_delta_counts(uint64_t *walked, uint64_t *fell_back, uint64_t *differed)
{
	*walked = delta_walked;
	*fell_back = delta_fell_back;
	*differed = delta_differed;
}
