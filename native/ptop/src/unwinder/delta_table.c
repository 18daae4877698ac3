/* Stack deltas (delta_table.h): rows compiled from a module's CFI on first use, kept in the
 * module's libdwfl userdata slot, sorted by address, found by binary search. */
#include "delta_table.h"
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
enum { DW_REG_FP = 6, DW_REG_SP = 7, DW_REG_RA = 16 };
#elif defined(__aarch64__)
enum { DW_REG_FP = 29, DW_REG_SP = 31, DW_REG_RA = 30 };
#else
#error "unsupported architecture"
#endif

/* Rows kept per module: the pcs sampled in it, far fewer than its code's rows; past the bound a
 * rule is compiled for each lookup and not kept. */
#define DELTA_MAX_ROWS (1u << 16)

struct delta_row {
	uint64_t lo, hi; /* process addresses, [lo, hi) */
	struct delta_rule rule;
};

struct delta_rows {
	struct delta_row *v;
	size_t n, cap;
};

static const struct delta_rule fallback = { .ra = DELTA_FALLBACK };

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* One register's rule, from libdw's location expression for it (dwarf_frame_register): no ops is
 * undefined (ops is ops_mem) or same value (ops is NULL); offset(N) is [call_frame_cfa,
 * plus_uconst N], val_offset(N) the same and stack_value; anything else is not a row's. */
static uint8_t loc_of(Dwarf_Frame *frame, int regno, int32_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	*off = 0;
	if (dwarf_frame_register(frame, regno, mem, &ops, &n) != 0)
		return DELTA_FALLBACK;
	if (n == 0)
		return ops == mem ? DELTA_UNDEFINED : ops == NULL ? DELTA_SAME : DELTA_FALLBACK;
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return DELTA_FALLBACK;
	size_t i = 1;
	if (i < n && ops[i].atom == DW_OP_plus_uconst) {
		if (!fits32((int64_t)ops[i].number))
			return DELTA_FALLBACK;
		*off = (int32_t)(int64_t)ops[i].number;
		i++;
	}
	if (i == n)
		return DELTA_AT_CFA;
	if (i + 1 == n && ops[i].atom == DW_OP_stack_value)
		return DELTA_IS_CFA;
	return DELTA_FALLBACK;
}

struct delta_rule delta_rule_of(Dwarf_Frame *frame)
{
	Dwarf_Addr start, end;
	bool signal = false;
	int ra = dwarf_frame_info(frame, &start, &end, &signal);
	Dwarf_Op *ops;
	size_t n;
	/* A signal frame's caller is unwound from its own pc, not the call before it: libdwfl's. */
	if (ra != DW_REG_RA || signal || dwarf_frame_cfa(frame, &ops, &n) != 0 || n != 1 || ops[0].atom != DW_OP_bregx ||
	    (ops[0].number != DW_REG_SP && ops[0].number != DW_REG_FP) || !fits32((int64_t)ops[0].number2))
		return fallback;
	struct delta_rule r = { .cfa_base = ops[0].number == DW_REG_SP ? DELTA_CFA_SP : DELTA_CFA_FP,
				.cfa_off = (int32_t)(int64_t)ops[0].number2 };
	r.ra = loc_of(frame, ra, &r.ra_off);
	r.fp = loc_of(frame, DW_REG_FP, &r.fp_off);
	r.sp = loc_of(frame, DW_REG_SP, &r.sp_off);
	if (r.ra == DELTA_FALLBACK || r.fp == DELTA_FALLBACK || r.sp == DELTA_FALLBACK)
		return fallback;
	return r;
}

/* The row at pc from one of the module's CFI (bias: where the CFI's addresses lie in the process). */
static bool row_from(Dwarf_CFI *cfi, Dwarf_Addr bias, uint64_t pc, struct delta_row *row)
{
	Dwarf_Frame *frame = NULL;
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0)
		return false;
	Dwarf_Addr start = 0, end = 0;
	bool signal;
	dwarf_frame_info(frame, &start, &end, &signal);
	row->rule = delta_rule_of(frame);
	/* From pc on: libdw's start can be stale after a DW_CFA_restore_state (it is the remembered
	 * state's), its end is where the row ends. */
	row->lo = pc;
	row->hi = end + bias > pc ? end + bias : pc + 1;
	free(frame);
	return true;
}

/* libdwfl's order (frame_unwind.c): .eh_frame, then .debug_frame (the file's or its debug file's);
 * with neither, its frame-pointer step (DELTA_NO_CFI). */
static struct delta_row compile(Dwfl_Module *mod, uint64_t pc)
{
	struct delta_row row = { pc, pc + 1, { .ra = DELTA_NO_CFI } };
	Dwarf_Addr bias;
	Dwarf_CFI *eh = dwfl_module_eh_cfi(mod, &bias);
	if (row_from(eh, bias, pc, &row))
		return row;
	Dwarf_CFI *dw = dwfl_module_dwarf_cfi(mod, &bias);
	row_from(dw, bias, pc, &row);
	return row;
}

/* The first row whose hi is above pc. */
static size_t row_index(const struct delta_rows *t, uint64_t pc)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->v[mid].hi <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Keeps row at index i, cut so that it overlaps neither neighbour (.debug_frame's row may cover
 * what .eh_frame describes); pc stays in it, as no kept row holds pc. */
static void insert(struct delta_rows *t, size_t i, struct delta_row row)
{
	if (t->n >= DELTA_MAX_ROWS)
		return;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct delta_row *v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return; /* not kept: compiled again next time */
		t->v = v;
		t->cap = cap;
	}
	if (i > 0 && row.lo < t->v[i - 1].hi)
		row.lo = t->v[i - 1].hi;
	if (i < t->n && row.hi > t->v[i].lo)
		row.hi = t->v[i].lo;
	memmove(&t->v[i + 1], &t->v[i], (t->n - i) * sizeof(*t->v));
	t->v[i] = row;
	t->n++;
}

struct delta_rule delta_lookup(Dwfl_Module *mod, uint64_t pc)
{
	void **slot = NULL;
	dwfl_module_info(mod, &slot, NULL, NULL, NULL, NULL, NULL, NULL);
	if (!slot)
		return fallback;
	struct delta_rows *t = *slot;
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return compile(mod, pc).rule;
		*slot = t;
	}
	size_t i = row_index(t, pc);
	if (i < t->n && t->v[i].lo <= pc)
		return t->v[i].rule;
	struct delta_row row = compile(mod, pc);
	insert(t, i, row);
	return row.rule;
}

static int release_module(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start, void *arg)
{
	(void)mod, (void)name, (void)start, (void)arg;
	struct delta_rows *t = *userdata;
	if (t) {
		free(t->v);
		free(t);
		*userdata = NULL;
	}
	return DWARF_CB_OK;
}

void delta_release(Dwfl *dwfl)
{
	if (dwfl)
		dwfl_getmodules(dwfl, release_module, NULL, 0);
}
