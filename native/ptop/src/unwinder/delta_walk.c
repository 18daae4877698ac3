/* The table-driven walk (delta_walk.h). Mirrors libdwfl's unwinding step by step, so that a walk
 * that does not fall back gives libdwfl's frames exactly (unwind_child.c checks this with
 * PTOP_UNWIND_CHECK=1):
 * - a frame's rule is looked up at its pc when it is the first frame, else at pc - 1 (the call);
 * - a register whose rule needs a value that is missing (a CFA on an fp that was not saved) or a
 *   read outside the snapshot is left without a value; a return address without one, or 0, ends
 *   the stack where it is, as libdwfl ends it (not truncated);
 * - the frames are recorded under unwind_child.c's frame_cb rules: a pc of 0 or outside every
 *   executable mapping ends the stack truncated, as does the depth bound. */
#include "delta_walk.h"
#include "delta_table.h"
#include <string.h>

/* libdwfl's memory_read in unwind_child.c: 8 bytes wholly inside the snapshot. */
static bool read_word(const struct delta_snapshot *s, uint64_t addr, uint64_t *v)
{
	if (addr < s->sp0 || addr - s->sp0 > s->len || s->len - (addr - s->sp0) < 8)
		return false;
	memcpy(v, s->stack + (addr - s->sp0), 8);
	return true;
}

struct reg {
	uint64_t v;
	bool ok;
};

/* A register's value in the caller by its rule (ok false: it has none). */
static struct reg caller_value(const struct delta_snapshot *s, uint8_t loc, int32_t off, struct reg cfa, struct reg self)
{
	struct reg r = { 0, false };
	switch (loc) {
	case DELTA_SAME:
		return self;
	case DELTA_AT_CFA:
		r.ok = cfa.ok && read_word(s, cfa.v + (uint64_t)(int64_t)off, &r.v);
		return r;
	case DELTA_IS_CFA:
		return (struct reg){ cfa.v + (uint64_t)(int64_t)off, cfa.ok };
	default:
		return r;
	}
}

#if defined(__x86_64__)
/* Where no CFI holds the pc (JIT code, a file without it), libdwfl's amd64 frame-pointer step
 * (elfutils' x86_64_unwind): the caller's fp saved at [fp], its pc at [fp + 8], its sp fp + 16,
 * which must lie above sp; only fp and sp have a value after it. false: libdwfl's unwind fails
 * there (the stack ends truncated). */
static bool fp_step(const struct delta_snapshot *s, uint64_t *pc, struct reg *sp, struct reg *fp)
{
	if (!fp->ok || fp->v == 0)
		return false;
	uint64_t old_sp = sp->ok ? sp->v : 0, prev_fp, ret;
	if (!read_word(s, fp->v, &prev_fp))
		prev_fp = 0;
	if (!read_word(s, fp->v + 8, &ret))
		return false;
	uint64_t new_sp = fp->v + 16;
	if (old_sp >= new_sp)
		return false;
	*pc = ret;
	*sp = (struct reg){ new_sp, true };
	*fp = (struct reg){ prev_fp, true };
	return true;
}
#endif

#if defined(__aarch64__)
/* User addresses are below 2^48; a value above holds a pointer-authentication code. */
#define USER_VA_MASK ((1ull << 48) - 1)
#endif

/* The first frame's pc and registers, as unwind_child.c's set_initial_registers gives libdwfl them;
 * false when they cannot be read. lr: the return-address register's value (amd64's rip is the pc). */
static bool first_frame(const struct delta_snapshot *s, uint64_t *pc, struct reg *sp, struct reg *lr)
{
	*pc = s->pc;
	*sp = (struct reg){ s->sp, true };
#if defined(__x86_64__)
	if (s->from_caller) { /* the caller: pc at [sp], sp above it */
		if (!read_word(s, s->sp0, pc))
			return false;
		sp->v = s->sp0 + 8;
	}
	*lr = (struct reg){ *pc, true };
#else
	if (s->from_caller) /* the caller: at the link register, its PAC bits cleared */
		*pc = s->lr & USER_VA_MASK;
	*lr = (struct reg){ s->lr, true };
#endif
	return true;
}

enum delta_walk_result delta_walk(Dwfl *dwfl, const struct delta_snapshot *s, bool (*mapped)(uint64_t pc, const void *arg),
				  const void *arg, uint64_t *pcs, uint32_t max, uint32_t *n, bool *truncated)
{
	*n = 0;
	*truncated = false;
	uint64_t pc;
	struct reg sp, fp = { s->fp, true }, lr;
	if (!first_frame(s, &pc, &sp, &lr))
		return DELTA_WALK_FALLBACK;
	for (bool first = true;; first = false) {
		/* The frame as frame_cb records it (the first frame's pc is exact, a caller's a return address). */
		if (pc == 0) {
			*truncated = true;
			return DELTA_WALK_DONE;
		}
		if (first && s->from_caller)
			pcs[(*n)++] = s->leaf_pc;
		uint64_t look = first && !s->from_caller ? pc : pc - 1;
		if (!mapped(look, arg) || *n == max) {
			*truncated = true;
			return DELTA_WALK_DONE;
		}
		pcs[(*n)++] = look;
		/* Its caller, by the row at the pc libdwfl looks up (the first frame's own). */
		uint64_t at = first ? pc : pc - 1;
		Dwfl_Module *mod = dwfl_addrmodule(dwfl, at);
		struct delta_rule r = mod ? delta_lookup(mod, at) : (struct delta_rule){ .ra = DELTA_NO_CFI };
		if (r.ra == DELTA_FALLBACK)
			return DELTA_WALK_FALLBACK;
		if (r.ra == DELTA_NO_CFI) {
#if defined(__x86_64__)
			if (!fp_step(s, &pc, &sp, &fp)) {
				*truncated = true;
				return DELTA_WALK_DONE;
			}
			lr = (struct reg){ 0, false }; /* the step sets the pc, not rip's register */
			continue;
#else
			return DELTA_WALK_FALLBACK; /* elfutils' arm64 frame-pointer step: libdwfl's */
#endif
		}
		struct reg base = r.cfa_base == DELTA_CFA_SP ? sp : fp;
		struct reg cfa = { base.v + (uint64_t)(int64_t)r.cfa_off, base.ok };
		struct reg ra = caller_value(s, r.ra, r.ra_off, cfa, lr);
		if (!ra.ok || ra.v == 0)
			return DELTA_WALK_DONE; /* the root, or nothing more to read: libdwfl's end */
#if defined(__aarch64__)
		if (ra.v > USER_VA_MASK)
			return DELTA_WALK_FALLBACK; /* a signed return address: what libdwfl makes of it is its own */
#endif
		struct reg nsp = caller_value(s, r.sp, r.sp_off, cfa, sp);
		fp = caller_value(s, r.fp, r.fp_off, cfa, fp);
		sp = nsp;
		pc = ra.v;
		lr = ra; /* the return-address register's value in the caller: its pc (amd64's rip), x30 */
	}
}
