/* Walking HotSpot's own frames (interpreted, C1/C2-compiled, native-method wrappers, stubs), which
 * keep no frame pointer and have no CFI, from a stack snapshot: each step takes one physical frame
 * whose pc is in the code cache, finds its code blob through the code heap's segment map, records
 * its Java methods (an nmethod's inlined ones from its scope descriptors) and computes the
 * caller's pc, sp and fp from the blob's frame size or the interpreter's frame layout. The VM's
 * memory (code cache, metadata) is read through hs_read_fn; stack words only from the snapshot.
 * Every value read is checked before it is followed (README "Java frames"): a step that cannot
 * be checked fails, it never guesses. Runs in the unprivileged unwinder child; fuzzed. */
#ifndef PTOP_HS_WALK_H
#define PTOP_HS_WALK_H
#include "hs_vm.h"
#include "hs_section.h"

/* A stack word at addr from the snapshot; 0 when it holds one. */
typedef int (*hs_stack_fn)(void *ctx, uint64_t addr, uint64_t *v);

struct hs_regs {
	uint64_t pc, sp, fp; /* sp: the unextended sp of HotSpot's frames (an interpreted callee's saved sender sp) */
	/* arm64's link register (x30) at the leaf, where a frame not built yet (or torn down already)
	 * keeps its return address; 0 where unknown, and on amd64, whose call pushes it */
	uint64_t lr;
	/* the frame's callee was native code (libdwfl's unwinding reached it), not a Java frame */
	bool native_callee;
};

/* What a walker keeps of one VM between samples (hs_walk.c): the identity of each pc it met in
 * the code cache, checked against the code's heap block and compile id before each use, and the
 * Method*s that checked out. Without it a Java frame costs some fifty reads of the target's
 * memory (a millisecond a sample of twenty frames, more than the child can keep up with). */
#define HS_CACHE_SLOTS 2048
#define HS_CACHE_METHODS 1024
#define HS_MAX_INLINE 32 /* methods of one compiled frame (C2's MaxInlineLevel is 15) */
/* What a pc in the code cache is (hs_walk.c identify()). */
struct hs_ident {
	uint64_t blob;
	int kind;       /* hs_walk.c's blob kinds */
	int32_t words;  /* the blob's frame size */
	uint32_t why;   /* 0: identified, else HS_LOST_* */
	size_t nrec;
	int32_t compile_id; /* an nmethod's (its fingerprint's) */
	/* an nmethod known to have been in place when the sample was taken (hs_walk.c seen_before()) */
	bool at_sample;
	uint64_t methods[HS_MAX_INLINE]; /* an nmethod's at that pc, innermost first */
	uint32_t stamps[HS_MAX_INLINE];  /* their stamps (hs_names.h hs_method_stamp), 0: unread */
};
struct hs_cached {
	uint64_t pc;
	bool exact;
	uint64_t fp[2];
	struct hs_ident id;
};
/* An interpreted frame's method's stamp (hs_names.h), and the pointers from the Method to its
 * class's name and its own it was taken with: kept only while they are the same. */
struct hs_stamped {
	uint64_t method, cm, cp, holder, klass_name, name;
	uint32_t stamp;
};
/* When the walker first found an nmethod (its address and compile id: one nmethod while it lives)
 * in place, on the clock of the samples' time: a sample taken after that ran that very code. */
#define HS_CACHE_SEEN 4096
struct hs_seen {
	uint64_t blob, seen_ns;
	int32_t compile_id;
};
struct hs_cache {
	struct hs_cached slot[HS_CACHE_SLOTS];
	struct hs_seen seen[HS_CACHE_SEEN];
	uint64_t methods[HS_CACHE_METHODS];
	struct hs_stamped stamped[HS_CACHE_METHODS];
	uint64_t hits, misses;
};

struct hs_mem {
	const struct hs_vm *vm;
	hs_read_fn rd;
	void *rd_ctx;
	hs_stack_fn st;
	void *st_ctx;
	struct hs_cache *cache; /* NULL: none */
	/* arm64's frames (the leaf's return address in lr; runtime calls' breadcrumbs, see sized())
	 * rather than amd64's */
	bool arm64;
	/* CLOCK_MONOTONIC ns: when the sample was taken, and now (the walk); 0: not known. With both
	 * and a cache, a compiled frame's records carry HS_R_AT_SAMPLE where its nmethod was found in
	 * place before the sample (hs_walk.c seen_before()). */
	uint64_t sample_ns, now_ns;
};

/* A compiled frame's record whose code is known to be the code the sample ran (the walker's
 * caller clears it before the section is written: it is not part of the section's format). */
#define HS_R_AT_SAMPLE 0x8000

enum { HS_STEP_JAVA = 0, HS_STEP_NATIVE = 1, HS_STEP_FAIL = -1 };

/* true when pc lies in the VM's code cache. */
bool hs_in_code(const struct hs_vm *vm, uint64_t pc);
/* One physical frame at *r (pc in the code cache; leaf: pc is where the thread was, not a return
 * address). Appends its records (innermost first, each with native_index) at out[*n] (cap in
 * all) and sets *r to the caller. HS_STEP_JAVA: the caller is in the code cache too; NATIVE: it
 * is native code (resume the native unwinder there); FAIL: the frame could not be checked, *why
 * says how (HS_LOST_*). */
int hs_step(const struct hs_mem *m, struct hs_regs *r, bool leaf, uint32_t native_index, struct hs_record *out,
	    size_t cap, size_t *n, uint32_t *why);
/* true when method is a Method* whose constant pool's holder class has that pool, or had it before
 * the class was redefined (the class's pool then belongs to the same class). */
bool hs_method_ok(const struct hs_mem *m, uint64_t method);
#endif
