#include "v8elf.h"
#include "elf_image.h"
#include "symtab_each.h"
#include <gelf.h>
#include <stdbool.h>
#include <libelf.h>
#include <string.h>

#define V8_PREFIX "v8dbg_"
#define V8_MAX_TYPES 4096

#define V8_SYM_NAMES(field, name, alt) { name, alt },
static const struct {
	const char *name, *alt;
} SYMS[] = { V8_LAYOUT_FIELDS(V8_SYM_NAMES) V8_LAYOUT_OPTIONAL(V8_SYM_NAMES) V8_LAYOUT_EXTRA(V8_SYM_NAMES) };
#define V8_COUNT(field, name, alt) +1
enum { NREQUIRED = 0 V8_LAYOUT_FIELDS(V8_COUNT) };
#undef V8_COUNT
#undef V8_SYM_NAMES
#define NSYMS (sizeof(SYMS) / sizeof(SYMS[0]))

/* Each field's index in SYMS (and in struct v8_layout, which has the same order). */
#define V8_FIELD_INDEX(field, name, alt) F_##field,
enum { V8_LAYOUT_FIELDS(V8_FIELD_INDEX) V8_LAYOUT_OPTIONAL(V8_FIELD_INDEX) V8_LAYOUT_EXTRA(V8_FIELD_INDEX) };
#undef V8_FIELD_INDEX
#define V8_RENAME(field, name) { F_##field, name },
static const struct {
	int field;
	const char *name;
} RENAMED[] = { V8_LAYOUT_RENAMED(V8_RENAME) };
#undef V8_RENAME

const char *v8_layout_field_symbol(int32_t i)
{
	return i >= 0 && (size_t)i < NSYMS ? SYMS[i].name : "";
}

struct scan {
	int32_t val[NSYMS];
	uint8_t found[NSYMS];
	int32_t types[V8_MAX_TYPES];
	size_t ntypes;
	int any;
	const unsigned char *buf; /* the file, for the values the symbols point at */
	size_t len;
};

/* The 4-byte value at virtual address vaddr: from the section that holds it, 0 in a NOBITS one
 * (a metadata constant that is 0 lands in .bss). -1 when no section holds it. */
static int value_at(Elf *elf, const unsigned char *buf, size_t len, uint64_t vaddr, int32_t *out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (vaddr < sh.sh_addr || vaddr - sh.sh_addr >= sh.sh_size || sh.sh_size - (vaddr - sh.sh_addr) < 4)
			continue;
		if (sh.sh_type == SHT_NOBITS) {
			*out = 0;
			return 0;
		}
		uint64_t off = sh.sh_offset + (vaddr - sh.sh_addr);
		if (off < sh.sh_offset || off > len || len - off < 4)
			return -1;
		memcpy(out, buf + off, 4);
		return 0;
	}
	return -1;
}

static void take(struct scan *s, const char *name, int32_t v)
{
	if (!strncmp(name, "type_", 5) && s->ntypes < V8_MAX_TYPES)
		s->types[s->ntypes++] = v;
	for (size_t i = 0; i < NSYMS; i++)
		if (!s->found[i] && (!strcmp(name, SYMS[i].name) || (SYMS[i].alt && !strcmp(name, SYMS[i].alt)))) {
			s->val[i] = v;
			s->found[i] = 1;
		}
	for (size_t i = 0; i < sizeof(RENAMED) / sizeof(RENAMED[0]); i++)
		if (!s->found[RENAMED[i].field] && !strcmp(name, RENAMED[i].name)) {
			s->val[RENAMED[i].field] = v;
			s->found[RENAMED[i].field] = 1;
		}
}

static void take_symbol(void *ctx, Elf *elf, const char *name, const GElf_Sym *sym)
{
	struct scan *s = ctx;
	if (sym->st_size != 4 || strncmp(name, V8_PREFIX, sizeof(V8_PREFIX) - 1))
		return;
	int32_t v;
	if (value_at(elf, s->buf, s->len, sym->st_value, &v))
		return;
	s->any = 1;
	take(s, name + sizeof(V8_PREFIX) - 1, v);
}

/* Offsets and indices the derivations below take as inputs: the target's, in range. */
static bool small(int32_t v)
{
	return v >= 0 && v <= 512;
}

/* What inlined frames need that some V8s do not export, derived from exported neighbours only where
 * those have the shape of a version known to lay them out so; the walker and the namer check the
 * objects at every use (their instance types, the pc inside the instructions), so a wrong derivation
 * costs the inlined frames, never a name.
 * - V8 11 (Node 20) exports neither JSFunction::code nor Code's instruction start and size. Its
 *   JSFunction has one pointer slot between raw_feedback_cell and prototype_or_initial_map: the
 *   code. Its Code follows deoptimization_data with source_position_table, then the instruction
 *   stream, the instructions' start, 8 bytes of flags and the instructions' size.
 * - V8 12 (Node 22) exports those, but no longer Code's deoptimization data and position table:
 *   the two tagged slots between its map and its wrapper, which the instruction stream and the
 *   instructions' start follow.
 * Returns whether every value inlined frames need is there. */
static bool derive_code_fields(struct v8_layout *l, const uint8_t *found)
{
	uint8_t have[NSYMS];
	memcpy(have, found, sizeof(have));
	if (!have[F_fn_code] && have[F_fn_feedback] && have[F_fn_proto] && small(l->fn_feedback) && small(l->fn_proto) &&
	    l->fn_proto - l->fn_feedback == 16) {
		l->fn_code = l->fn_feedback + 8;
		have[F_fn_code] = 1;
	}
	if (!have[F_code_istart] && !have[F_code_isize] && have[F_code_deopt] && have[F_code_positions] &&
	    small(l->code_deopt) && small(l->code_positions) && l->code_positions - l->code_deopt == 8) {
		l->code_istart = l->code_positions + 16;
		l->code_isize = l->code_istart + 16;
		have[F_code_istart] = have[F_code_isize] = 1;
	}
	if (!have[F_code_deopt] && !have[F_code_positions] && have[F_code_wrapper] && have[F_code_istream] &&
	    have[F_code_istart] && small(l->map) && small(l->code_istart) && l->code_istream == l->code_istart - 8 &&
	    l->code_wrapper == l->code_istream - 8 && l->code_wrapper == l->map + 24) {
		l->code_deopt = l->map + 8;
		l->code_positions = l->map + 16;
		have[F_code_deopt] = have[F_code_positions] = 1;
	}
	static const int needed[] = { F_type_byte_array, F_type_weak_array, F_type_code, F_code_deopt, F_code_positions,
				      F_deopt_literals, F_deopt_inlining, F_fn_code, F_code_istart, F_code_isize };
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (!have[needed[i]])
			return false;
	return true;
}

int v8_layout_check(const struct v8_layout *l)
{
	if (l->pointer_size != 8 || (int64_t)l->smi_shift + l->smi_value_shift != 32)
		return V8WHY_COMPRESSED;
	if (l->heap_tag != 1 || l->heap_tag_mask != 3 || l->smi_tag != 0 || l->smi_tag_mask != 1)
		return V8WHY_TAGS;
	/* fp slots: below fp, within the fixed part of a frame */
	if (l->fp_function >= 0 || l->fp_function < -64 || l->fp_context >= 0 || l->fp_context < -64 ||
	    l->fp_bytecode >= 0 || l->fp_bytecode < -64 || (l->fp_function & 7) || (l->fp_context & 7) || (l->fp_bytecode & 7))
		return V8WHY_RANGE;
	const int32_t offs[] = { l->map, l->map_type, l->fn_shared, l->sfi_name, l->sfi_script, l->script_name,
				 l->script_source, l->script_line_ends, l->string_length, l->seq_one_chars,
				 l->seq_two_chars, l->cons_first, l->cons_second, l->thin_actual, l->sliced_parent,
				 l->sliced_offset, l->array_length, l->array_data, l->fn_feedback, l->fn_proto,
				 l->code_deopt, l->code_positions, l->fn_code, l->code_istart, l->code_isize,
				 l->code_wrapper, l->code_istream };
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		if (offs[i] < 0 || offs[i] > 512)
			return V8WHY_RANGE;
	if (l->deopt_literals < 0 || l->deopt_literals > 32 || l->deopt_inlining < 0 || l->deopt_inlining > 32)
		return V8WHY_RANGE;
	if (l->scope_ncontextlocals < 0 || l->scope_ncontextlocals > 16 || l->scope_first_vars < 0 ||
	    l->scope_first_vars > 16)
		return V8WHY_RANGE;
	const int32_t types[] = { l->type_fn, l->type_fn_end, l->type_sfi, l->type_script, l->type_scope_info,
				  l->type_fixed_array, l->first_nonstring, l->type_bytecode };
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i] <= 0 || types[i] > 0xffff)
			return V8WHY_RANGE;
	/* inlined frames' types: 0 when not exported (then fn_code is 0: none) */
	const int32_t inl_types[] = { l->type_byte_array, l->type_weak_array, l->type_code };
	for (size_t i = 0; i < sizeof(inl_types) / sizeof(inl_types[0]); i++)
		if (inl_types[i] < 0 || inl_types[i] > 0xffff || (l->fn_code && !inl_types[i]))
			return V8WHY_RANGE;
	const int32_t more_types[] = { l->type_fn_last, l->type_trusted_fixed, l->type_trusted_bytes };
	for (size_t i = 0; i < sizeof(more_types) / sizeof(more_types[0]); i++)
		if (more_types[i] < 0 || more_types[i] > 0xffff)
			return V8WHY_RANGE;
	if (l->type_fn_end <= l->type_fn || l->type_fn_end - l->type_fn > 64)
		return V8WHY_RANGE;
	return V8WHY_NONE;
}

void v8_elf_analyze(const void *buf, size_t len, struct v8_elf_info *out)
{
	memset(out, 0, sizeof(*out));
	GElf_Ehdr eh;
	Elf *elf = elf_image_open(buf, len, &eh);
	if (!elf)
		return;
	static struct scan s;
	memset(&s, 0, sizeof(s));
	s.buf = (const unsigned char *)buf;
	s.len = len;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	/* .symtab first, then .dynsym: a value found once counts */
	for (int pass = 0; pass < 2; pass++)
		while ((scn = elf_nextscn(elf, scn)) != NULL)
			if (gelf_getshdr(scn, &sh) && sh.sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB))
				symtab_each(elf, scn, &sh, take_symbol, &s);
	elf_end(elf);
	if (!s.any)
		return;
	out->status = V8ELF_UNSUPPORTED;
	int32_t *vals = (int32_t *)&out->layout;
	for (size_t i = 0; i < NSYMS; i++) {
		if (!s.found[i] && i >= NREQUIRED) {
			vals[i] = 0;
			continue;
		}
		if (!s.found[i]) {
			out->why = V8WHY_MISSING;
			out->missing = (int32_t)i;
			return;
		}
		vals[i] = s.val[i];
	}
	int32_t end = 0;
	for (size_t i = 0; i < s.ntypes; i++)
		if (s.types[i] > out->layout.type_fn && (end == 0 || s.types[i] < end))
			end = s.types[i];
	if (s.found[F_type_fn_last] && out->layout.type_fn_last >= out->layout.type_fn && out->layout.type_fn_last < 0xffff)
		end = out->layout.type_fn_last + 1;
	out->layout.type_fn_end = end;
	if (!derive_code_fields(&out->layout, s.found))
		out->layout.fn_code = out->layout.code_istart = out->layout.code_isize = 0;
	out->why = v8_layout_check(&out->layout);
	if (out->why == V8WHY_NONE)
		out->status = V8ELF_SUPPORTED;
}
