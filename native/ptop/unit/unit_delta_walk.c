/* Stack deltas (delta_table.h, delta_walk.h) on the harness's own stack, built without frame
 * pointers: the rows compiled for one of its pcs, and snapshots of a 40-deep recursion unwound by
 * the table-driven walk, each also unwound by libdwfl (PTOP_UNWIND_CHECK): the two must give the
 * same frames, whole, cut short by a small snapshot, and over a snapshot whose callers' bytes are
 * garbage. The child is handed the harness's real executable mappings (/proc/self/maps) and its
 * real registers. Runs on amd64, and on arm64 (checked under qemu-aarch64 with Debian's arm64
 * libdw). Exit 0 and "ok: N cases" when every case holds. */
#include "delta_table.h"
#include "unwind_child.h"
#include "unwind_wire.h"
#include <linux/types.h>
#include "ptop.h"
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PID 11
#define DEPTH 40
#define SNAP 16384

static uint8_t rec[sizeof(struct sample_hdr) + SNAP];
static uint64_t snap_pc, snap_sp, snap_fp;
static uint32_t snap_len;
static int cases, failures;

static void fail(const char *what)
{
	fprintf(stderr, "%s\n", what);
	failures++;
}

/* The registers at one point of this function and the stack above them, read through
 * /proc/self/mem (the kernel copies: ASan's redzones in the callers' frames are not read by
 * instrumented code). */
__attribute__((noinline)) static void snapshot(void)
{
#if defined(__x86_64__)
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2" : "=r"(snap_pc), "=r"(snap_sp), "=r"(snap_fp));
#elif defined(__aarch64__)
	__asm__ volatile("adr %0, .\n\tmov %1, sp\n\tmov %2, x29" : "=r"(snap_pc), "=r"(snap_sp), "=r"(snap_fp));
#endif
	int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? pread(fd, rec + sizeof(struct sample_hdr), SNAP, (off_t)snap_sp) : -1;
	if (n <= 0) /* the stack's top is nearer than SNAP: the part up to it */
		for (size_t len = SNAP / 2; n <= 0 && len >= 512; len /= 2)
			n = pread(fd, rec + sizeof(struct sample_hdr), len, (off_t)snap_sp);
	snap_len = n > 0 ? (uint32_t)n : 0;
	close(fd);
}

static volatile int sink;

__attribute__((noinline)) static void descend(int depth)
{
	if (depth == 0)
		snapshot();
	else
		descend(depth - 1);
	sink += depth; /* not a tail call */
}

/* The harness's executable file mappings, as the parent sends a target's. */
static void send_mappings(void)
{
	struct umsg m = { MSG_GONE, PID, 0, 0, 0, 1, 0, 0 };
	uwc_message(&m, sizeof(m), -1);
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[5], path[400] = "";
		if (sscanf(line, "%llx-%llx %4s %llx %*s %*s %399s", &start, &end, perms, &off, path) < 4 || perms[2] != 'x' ||
		    path[0] != '/')
			continue;
		struct umsg map = { MSG_MAP, PID, start, end, off, 0, 0, 0 };
		uwc_message(&map, sizeof(map), open(path, O_RDONLY | O_CLOEXEC));
	}
	if (f)
		fclose(f);
}

static uint32_t frames, truncated_stacks;

static void collect(const void *r, size_t len, void *arg)
{
	(void)arg;
	struct unwound_hdr h;
	struct unwind_trailer t;
	int kind = unwind_check_result(r, len, &h, &t);
	if (kind == UNWIND_REC_BAD)
		abort();
	if (kind == UNWIND_REC_STACK) {
		frames = h.npcs;
		truncated_stacks += h.truncated;
	}
}

/* The snapshot, its first len bytes, unwound; frames and truncation from the child's record. */
static void unwind_snapshot(uint32_t len, uint64_t *walked, uint64_t *differed)
{
	struct sample_hdr *h = (struct sample_hdr *)rec;
	memset(h, 0, sizeof(*h));
	h->kind = P_CPU;
	h->value = 1; /* a cpu sample counts one (cpu.bpf.c) */
	h->tgid = h->tid = PID;
	h->kstack = -1;
	h->time_ns = 2;
	h->regs[PTOP_REG_PC] = snap_pc;
	h->regs[PTOP_REG_SP] = snap_sp;
	h->regs[PTOP_REG_FP] = snap_fp;
	h->stack_len = len;
	send_mappings();
	uwc_sample(NULL, rec, sizeof(*h) + len);
	frames = truncated_stacks = 0;
	uwc_results(collect, NULL);
	uint64_t fell_back;
	uwc_delta_counts(walked, &fell_back, differed);
	uwc_reset();
}

static void expect_walk(const char *name, uint32_t len, uint32_t min_frames)
{
	uint64_t walked, differed;
	cases++;
	unwind_snapshot(len, &walked, &differed);
	if (walked != 1 || differed != 0 || frames < min_frames) {
		fprintf(stderr, "%s: walked %llu, differed from libdwfl %llu, %u frames (at least %u expected)\n", name,
			(unsigned long long)walked, (unsigned long long)differed, frames, min_frames);
		failures++;
	}
}

/* The row for snapshot()'s pc: an FP-less function's CFA is sp plus its frame, the return address
 * saved below the CFA (amd64: just below), sp the CFA itself. */
static void expect_row(void)
{
	cases++;
	static const Dwfl_Callbacks cb = { .find_elf = dwfl_linux_proc_find_elf, .find_debuginfo = dwfl_standard_find_debuginfo };
	Dwfl *d = dwfl_begin(&cb);
	if (!d || dwfl_linux_proc_report(d, getpid()) != 0 || dwfl_report_end(d, NULL, NULL) != 0) {
		fail("row: libdwfl could not report the harness");
		return;
	}
	Dwfl_Module *mod = dwfl_addrmodule(d, snap_pc);
	struct delta_rule r = mod ? delta_lookup(mod, snap_pc) : (struct delta_rule){ .ra = DELTA_FALLBACK };
	struct delta_rule again = mod ? delta_lookup(mod, snap_pc) : r; /* from the kept row */
#if defined(__x86_64__)
	bool ra_where = r.ra_off == -8;
#else
	bool ra_where = r.ra_off < 0 && r.ra_off >= -r.cfa_off;
#endif
	if (r.cfa_base != DELTA_CFA_SP || r.cfa_off < 8 || r.ra != DELTA_AT_CFA || !ra_where || r.sp != DELTA_IS_CFA ||
	    r.sp_off != 0 || memcmp(&r, &again, sizeof(r)) != 0) {
		fprintf(stderr, "row: cfa %s%+d, ra kind %u at %+d, sp kind %u %+d\n", r.cfa_base == DELTA_CFA_SP ? "sp" : "fp",
			r.cfa_off, r.ra, r.ra_off, r.sp, r.sp_off);
		failures++;
	}
	delta_release(d);
	dwfl_end(d);
}

int main(void)
{
	setenv("PTOP_UNWIND_CHECK", "1", 1);
	if (uwc_init(false, NULL))
		return 1;
	descend(DEPTH);
	if (snap_len < 1024)
		fail("no snapshot of the stack");
	expect_row();
	/* Whole: snapshot, DEPTH + 1 descends, main and what called it. */
	expect_walk("whole stack", snap_len, DEPTH + 3);
	/* Cut short: the walk ends where the snapshot ends, as libdwfl's does. */
	expect_walk("a 512-byte snapshot", 512, 2);
	/* Garbage above the first frames: whatever the walk reads, it agrees with libdwfl. */
	uint8_t *stack = rec + sizeof(struct sample_hdr);
	srand(7);
	for (int round = 0; round < 20; round++) {
		for (uint32_t i = 256 + 8 * (uint32_t)round; i < snap_len; i += 8 + (uint32_t)(rand() % 64))
			stack[i] ^= (uint8_t)(1 + rand() % 255);
		expect_walk("garbage above the first frames", snap_len, 1);
	}
	if (failures)
		return 1;
	printf("ok: %d cases\n", cases);
	return 0;
}
