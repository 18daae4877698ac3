#include "hs_vm.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Real tables have about 2,000 structure entries and 1,000 types; the bound keeps a hostile table
 * from costing more than a few milliseconds. */
#define MAX_ENTRIES 20000
#define NAME_MAX_LEN 96

static int read_u64(hs_read_fn rd, void *ctx, uint64_t addr, uint64_t *v)
{
	return rd(ctx, addr, v, sizeof(*v));
}

/* A NUL-terminated string of at most cap - 1 bytes at addr (read in one piece, then cut). */
static int read_str(hs_read_fn rd, void *ctx, uint64_t addr, char *buf, size_t cap)
{
	if (!addr)
		return -1;
	/* the string may end just before an unmapped page: read less when a whole read fails */
	for (size_t want = cap - 1; want >= 8; want /= 2)
		if (rd(ctx, addr, buf, want) == 0) {
			buf[want] = 0;
			return memchr(buf, 0, want) ? 0 : -1;
		}
	return -1;
}

struct table {
	uint64_t base, stride;
	uint64_t name_off, name2_off, value_off; /* name2: the field name of a structure entry */
};

static int table_at(hs_read_fn rd, void *ctx, const struct hs_elf_syms *s, int base, int stride, struct table *t)
{
	if (read_u64(rd, ctx, s->addr[base], &t->base) || read_u64(rd, ctx, s->addr[stride], &t->stride) || !t->base ||
	    t->stride < 16 || t->stride > 256)
		return -1;
	return 0;
}

static int read_off(hs_read_fn rd, void *ctx, const struct hs_elf_syms *s, int sym, uint64_t stride, uint64_t *off)
{
	return read_u64(rd, ctx, s->addr[sym], off) || *off > stride - 8 ? -1 : 0;
}

#define BIT(i) (1ull << (i))

static void structs(hs_read_fn rd, void *ctx, const struct hs_elf_syms *s, const struct table *t, uint64_t static_off,
		    uint64_t offset_off, uint64_t address_off, struct hs_vm *vm)
{
	static const char *const types[] = {
#define NAME(slot, type, field, req) type,
		HS_FIELDS(NAME)
#undef NAME
	};
	static const char *const fields[] = {
#define NAME(slot, type, field, req) field,
		HS_FIELDS(NAME)
#undef NAME
	};
	uint64_t *slots[] = {
#define SLOT(slot, ...) &vm->slot,
		HS_FIELDS(SLOT)
#undef SLOT
	};
	const size_t n = sizeof(types) / sizeof(types[0]);
	for (uint64_t i = 0; i < MAX_ENTRIES; i++) {
		uint64_t e = t->base + i * t->stride, tn, fn;
		char type[NAME_MAX_LEN], field[NAME_MAX_LEN];
		if (read_u64(rd, ctx, e + t->name_off, &tn) || !tn)
			break;
		if (read_u64(rd, ctx, e + t->name2_off, &fn) || read_str(rd, ctx, tn, type, sizeof(type)) ||
		    read_str(rd, ctx, fn, field, sizeof(field)))
			continue;
		for (size_t k = 0; k < n; k++) {
			if (strcmp(types[k], type) || strcmp(fields[k], field))
				continue;
			int32_t is_static;
			uint64_t v;
			if (rd(ctx, e + static_off, &is_static, sizeof(is_static)) ||
			    read_u64(rd, ctx, e + (is_static ? address_off : offset_off), &v))
				continue;
			/* an offset within a structure is small; a static's address is not */
			if (!is_static && v > (1u << 20))
				continue;
			*slots[k] = v;
			vm->have_fields |= BIT(k);
		}
	}
}

static void types_and_ints(hs_read_fn rd, void *ctx, const struct table *t, bool types, struct hs_vm *vm)
{
	static const char *const tnames[] = {
#define NAME(slot, type) type,
		HS_TYPES(NAME)
#undef NAME
	};
	uint64_t *tslots[] = {
#define SLOT(slot, ...) &vm->slot,
		HS_TYPES(SLOT)
#undef SLOT
	};
	static const char *const inames[] = {
#define NAME(slot, name) name,
		HS_INTS(NAME)
#undef NAME
	};
	int64_t *islots[] = {
#define SLOT(slot, ...) &vm->slot,
		HS_INTS(SLOT)
#undef SLOT
	};
	const char *const *names = types ? tnames : inames;
	size_t n = types ? sizeof(tnames) / sizeof(tnames[0]) : sizeof(inames) / sizeof(inames[0]);
	for (uint64_t i = 0; i < MAX_ENTRIES; i++) {
		uint64_t e = t->base + i * t->stride, np;
		char name[NAME_MAX_LEN];
		if (read_u64(rd, ctx, e + t->name_off, &np) || !np)
			break;
		if (read_str(rd, ctx, np, name, sizeof(name)))
			continue;
		for (size_t k = 0; k < n; k++) {
			if (strcmp(names[k], name))
				continue;
			if (types) {
				uint64_t v;
				if (read_u64(rd, ctx, e + t->value_off, &v) || v == 0 || v > (1u << 20))
					continue;
				*tslots[k] = v;
				vm->have_types |= BIT(k);
			} else {
				int32_t v;
				if (rd(ctx, e + t->value_off, &v, sizeof(v)))
					continue;
				*islots[k] = v;
				vm->have_ints |= BIT(k);
			}
		}
	}
}

/* The first required entry the VM did not describe, or NULL. */
static const char *missing(const struct hs_vm *vm)
{
	static const char *const names[] = {
#define NAME(slot, type, field, req) type "::" field,
		HS_FIELDS(NAME)
#undef NAME
	};
	static const int required[] = {
#define REQ(slot, type, field, req) req,
		HS_FIELDS(REQ)
#undef REQ
	};
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (required[k] && !(vm->have_fields & BIT(k)))
			return names[k];
	static const char *const tnames[] = {
#define NAME(slot, type) "sizeof(" type ")",
		HS_TYPES(NAME)
#undef NAME
	};
	for (size_t k = 0; k < sizeof(tnames) / sizeof(tnames[0]); k++)
		if (!(vm->have_types & BIT(k)))
			return tnames[k];
	static const char *const inames[] = {
#define NAME(slot, name) name,
		HS_INTS(NAME)
#undef NAME
	};
	for (size_t k = 0; k < sizeof(inames) / sizeof(inames[0]); k++)
		if (!(vm->have_ints & BIT(k)))
			return inames[k];
	return NULL;
}

#define FIELD_BIT(name) field_bit_##name
enum {
#define ENUM(slot, ...) FIELD_BIT(slot),
	HS_FIELDS(ENUM)
#undef ENUM
};
#define HAVE(vm, slot) (((vm)->have_fields & BIT(FIELD_BIT(slot))) != 0)
#define INT_BIT(name) int_bit_##name
enum {
#define ENUM(slot, ...) INT_BIT(slot),
	HS_INTS(ENUM)
#undef ENUM
};

/* Which of the two nmethod layouts the tables describe (hs_vm.h), or the first field missing. JDK
 * 23 and 24 (the scopes split off, the metadata still in the blob) are neither: not walked. */
static const char *nmethod_layout(struct hs_vm *vm)
{
	if (HAVE(vm, nm_immutable_data) || HAVE(vm, blob_code_offset)) {
		vm->nm_layout = HS_NM_SPLIT;
		return !HAVE(vm, blob_code_offset)	     ? "CodeBlob::_code_offset"
		       : !HAVE(vm, nm_immutable_data)	     ? "nmethod::_immutable_data"
		       : !HAVE(vm, nm_scopes_data_offset)   ? "nmethod::_scopes_data_offset"
		       : !HAVE(vm, blob_mutable_data)	     ? "CodeBlob::_mutable_data"
		       : !HAVE(vm, blob_mutable_data_size) ? "CodeBlob::_mutable_data_size"
		       : !HAVE(vm, blob_relocation_size)   ? "CodeBlob::_relocation_size"
							     : NULL;
	}
	vm->nm_layout = HS_NM_IN_BLOB;
	return !HAVE(vm, blob_code_begin)						? "CodeBlob::_code_begin"
	       : !HAVE(vm, cm_scopes_data_begin) && !HAVE(vm, nm_scopes_data_begin) ? "nmethod::_scopes_data_begin"
	       : !HAVE(vm, nm_metadata_offset)						? "nmethod::_metadata_offset"
	       : !HAVE(vm, nm_dependencies_offset)					? "nmethod::_dependencies_offset"
											: NULL;
}

int hs_vm_open(hs_read_fn rd, void *ctx, const struct hs_elf_syms *s, struct hs_vm *vm, char *why, size_t len)
{
	memset(vm, 0, sizeof(*vm));
	struct table st, tt, it;
	uint64_t static_off, offset_off, address_off;
	if (table_at(rd, ctx, s, HS_SYM_STRUCTS, HS_SYM_S_STRIDE, &st) ||
	    read_off(rd, ctx, s, HS_SYM_S_TYPE, st.stride, &st.name_off) ||
	    read_off(rd, ctx, s, HS_SYM_S_FIELD, st.stride, &st.name2_off) ||
	    read_off(rd, ctx, s, HS_SYM_S_STATIC, st.stride, &static_off) ||
	    read_off(rd, ctx, s, HS_SYM_S_OFFSET, st.stride, &offset_off) ||
	    read_off(rd, ctx, s, HS_SYM_S_ADDRESS, st.stride, &address_off) ||
	    table_at(rd, ctx, s, HS_SYM_TYPES, HS_SYM_T_STRIDE, &tt) ||
	    read_off(rd, ctx, s, HS_SYM_T_NAME, tt.stride, &tt.name_off) ||
	    read_off(rd, ctx, s, HS_SYM_T_SIZE, tt.stride, &tt.value_off) ||
	    table_at(rd, ctx, s, HS_SYM_INTS, HS_SYM_I_STRIDE, &it) ||
	    read_off(rd, ctx, s, HS_SYM_I_NAME, it.stride, &it.name_off) ||
	    read_off(rd, ctx, s, HS_SYM_I_VALUE, it.stride, &it.value_off)) {
		snprintf(why, len, "its structure tables (gHotSpotVMStructs) could not be read");
		return -1;
	}
	structs(rd, ctx, s, &st, static_off, offset_off, address_off, vm);
	types_and_ints(rd, ctx, &tt, true, vm);
	types_and_ints(rd, ctx, &it, false, vm);
	/* the alternatives: one of each pair must be there */
	/* GrowableArrayBase was GenericGrowableArray before (JDK 11 describes _len there) */
	vm->off_growable_len = HAVE(vm, growable_len)	      ? vm->growable_len
			       : HAVE(vm, growable_len_old) ? vm->growable_len_old
							    : vm->growable_len_generic;
	vm->off_method = HAVE(vm, cm_method) ? vm->cm_method : vm->nm_method;
	vm->off_scopes_data_begin = HAVE(vm, cm_scopes_data_begin) ? vm->cm_scopes_data_begin : vm->nm_scopes_data_begin;
	const uint64_t frame_ints = BIT(INT_BIT(fr_sender_sp)) | BIT(INT_BIT(fr_last_sp));
	if (HS_ARM64 && !(vm->have_ints & frame_ints)) { /* frame_aarch64.hpp's (hs_vm.h, HS_INTS) */
		vm->fr_sender_sp = -1, vm->fr_last_sp = -2;
		vm->have_ints |= frame_ints;
	}
	const char *m = missing(vm);
	if (!m && !HAVE(vm, growable_len) && !HAVE(vm, growable_len_old) && !HAVE(vm, growable_len_generic))
		m = "GrowableArrayBase::_len";
	if (!m && !HAVE(vm, cm_method) && !HAVE(vm, nm_method))
		m = "nmethod::_method";
	if (!m)
		m = nmethod_layout(vm);
	if (m) {
		snprintf(why, len, "its structure tables do not describe %s", m);
		return -1;
	}
	int32_t major;
	if (rd(ctx, vm->vm_major, &major, sizeof(major)) || major < 8 || major > 99) {
		snprintf(why, len, "its version could not be read");
		return -1;
	}
	vm->unsigned5_x = major >= 20;
	vm->have_compile_id = HAVE(vm, nm_compile_id);
	vm->deopt = !HAVE(vm, nm_orig_pc_offset)	  ? 0
		    : HAVE(vm, cm_deopt_handler_begin)	  ? HS_DEOPT_ADDRESS
		    : HAVE(vm, nm_deopt_handler_offset) ? HS_DEOPT_OFFSET
							  : 0;
	vm->fr_method = vm->fr_last_sp - 1;
#if defined(__x86_64__)
	vm->fr_bcp = HAVE(vm, cmethod_code_size) && major >= 9 ? vm->fr_method - 5 : 0;
	vm->fr_mirror = HAVE(vm, klass_mirror) && HAVE(vm, oophandle_obj) && major >= 9 ? vm->fr_method - 1 : 0;
#endif
	if (read_u64(rd, ctx, vm->codecache_low, &vm->code_low) || read_u64(rd, ctx, vm->codecache_high, &vm->code_high) ||
	    vm->code_low >= vm->code_high) {
		snprintf(why, len, "its code cache's bounds could not be read");
		return -1;
	}
	return 0;
}
