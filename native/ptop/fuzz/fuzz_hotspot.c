/* libFuzzer harness for the HotSpot readers (src/interp/hotspot/): the input is a JVM's memory.
 * Byte 0 picks what runs over it: the frame walker (hs_walk.c) and the namer (hs_names.c) with a
 * JDK 17 or a JDK 25 x86-64 layout (the ones the VM's tables gave on Debian's 17 and Temurin 25), the reader of the VM's own
 * structure tables (hs_vm.c) with its symbols at the image's start, or the libjvm.so recogniser
 * (hs_elf.c) on the bytes as an ELF file. Bytes 1-7: the walk's pc, sp and fp (offsets into the
 * image), whether the pc is the leaf, whether the walker's cache is used and whether the frames are
 * arm64's (the leaf's link register set from byte 7's upper bits). The rest is memory mapped at BASE; reads outside it
 * fail, as a read of unmapped target memory does, and the stack is read from the same image.
 * fuzz/corpus/hotspot holds a small image with an nmethod, a stub and their metadata
 * (tools/hotspot_seed.py). */
#include "hs_names.h"
#include "hs_namecache.h"
#include "fuzz_mem.h"
#include <stdint.h>
#include <string.h>

#define BASE FUZZ_MEM_BASE
#define HDR 8

static int st(void *ctx, uint64_t addr, uint64_t *v)
{
	return fuzz_mem_read(ctx, addr, v, 8);
}

/* The layout Debian's OpenJDK 17 (amd64) describes; the seed image is laid out to match. */
static void jdk17(struct hs_vm *vm)
{
	memset(vm, 0, sizeof(*vm));
	vm->codecache_heaps = BASE;
	vm->off_growable_len = 0, vm->growable_data = 8;
	vm->heap_memory = 8, vm->heap_segmap = 0x78, vm->heap_log2_seg = 0x100, vm->vs_low = 0x10, vm->vs_high = 0x18;
	vm->heapblock_used = 8, vm->size_heapblock = 0x10;
	vm->blob_name = 0x60, vm->blob_size = 0xc, vm->blob_frame_complete = 0x14, vm->blob_frame_size = 0x1c;
	vm->blob_code_begin = 0x20, vm->off_method = 0x70, vm->off_scopes_data_begin = 0x78;
	vm->nm_metadata_offset = 0x104, vm->nm_scopes_pcs_offset = 0x10c, vm->nm_dependencies_offset = 0x110;
	vm->pcdesc_pc_offset = 0, vm->pcdesc_scope_offset = 4, vm->size_pcdesc = 0x10;
	vm->method_const = 8, vm->cmethod_constants = 8, vm->cmethod_name_index = 0x22, vm->cmethod_sig_index = 0x24;
	vm->cpool_holder = 0x18, vm->cpool_length = 0x3c, vm->size_cpool = 0x48;
	vm->klass_name = 0x18, vm->iklass_methods = 0x198, vm->iklass_constants = 0xe8;
	vm->array_ptr_len = 0, vm->array_ptr_data = 8, vm->symbol_length = 4, vm->symbol_body = 6;
	vm->fr_sender_sp = -1, vm->fr_method = -3, vm->fr_bcp = -8, vm->fr_mirror = -4;
	vm->klass_mirror = 0x70, vm->oophandle_obj = 0;
	vm->cmethod_code_size = 0x28, vm->size_cmethod = 0x38;
	vm->code_low = BASE + 0x1000, vm->code_high = BASE + 0x3000;
	vm->nm_layout = HS_NM_IN_BLOB, vm->unsigned5_x = 0;
	vm->nm_compile_id = 0x130, vm->have_compile_id = true;
	vm->deopt = HS_DEOPT_ADDRESS, vm->cm_deopt_handler_begin = 0x80, vm->nm_orig_pc_offset = 0x12c;
}

/* Temurin 25's nmethod: tables in _immutable_data, metadata in the blob's _mutable_data. */
static void jdk25(struct hs_vm *vm)
{
	jdk17(vm);
	vm->nm_layout = HS_NM_SPLIT, vm->unsigned5_x = 1;
	vm->blob_code_offset = 0x24, vm->nm_immutable_data = 0x60, vm->nm_scopes_pcs_offset = 0xc4;
	vm->nm_scopes_data_offset = 0xc8, vm->blob_mutable_data = 0x10, vm->blob_relocation_size = 0x1c;
	vm->blob_mutable_data_size = 0x30;
	vm->deopt = HS_DEOPT_OFFSET, vm->nm_deopt_handler_offset = 0xb0, vm->nm_orig_pc_offset = 0xd0, vm->nm_compile_id = 0xd4;
}

static size_t walk(const struct hs_mem *hm, const uint8_t *h, struct hs_record *rec)
{
	struct hs_regs r = { BASE + (uint64_t)(h[1] | h[2] << 8), BASE + (uint64_t)(h[3] | h[4] << 8),
			     BASE + (uint64_t)(h[5] | h[6] << 8), 0, !(h[7] & 1) };
	bool leaf = h[7] & 1;
	/* byte 7 bit 2: arm64's frames, the leaf's link register somewhere near the pc */
	if (h[7] & 4)
		r.lr = r.pc + 8ull * (uint64_t)(h[7] >> 3);
	size_t n = 0;
	for (int i = 0; i < 16 && hs_in_code(hm->vm, r.pc) && n < HS_MAX_RECORDS; i++, leaf = false) {
		uint32_t why = 0;
		size_t before = n;
		int rc = hs_step(hm, &r, leaf, (uint32_t)i, rec, HS_MAX_RECORDS, &n, &why);
		if (n < before || n > HS_MAX_RECORDS || (rc == HS_STEP_FAIL && (why == 0 || why >= HS_LOST__COUNT)))
			__builtin_trap();
		if (rc != HS_STEP_JAVA)
			break;
	}
	return n;
}

/* A name the unwinder keeps is what ptop emits: printable, within HS_NAME_MAX. */
static void kept_name(uint64_t method, uint32_t stamp, const char *name, size_t len, void *arg)
{
	(void)arg;
	if (!method || !stamp || len == 0 || len >= HS_NAME_MAX)
		__builtin_trap();
	for (size_t k = 0; k < len; k++)
		if ((unsigned char)name[k] < 0x20 || name[k] == 0x7f)
			__builtin_trap();
}

static void walk_and_name(const uint8_t *h, struct fuzz_mem *m)
{
	struct hs_vm vm;
	if (h[0] % 4 == 1)
		jdk25(&vm);
	else
		jdk17(&vm);
	/* byte 7 bit 1: with the walker's cache, fresh for this input, every pc identified twice */
	static struct hs_cache cache;
	struct hs_cache *c = NULL;
	if (h[7] & 2) {
		memset(&cache, 0, sizeof(cache));
		c = &cache;
	}
	/* with the cache, the sample taken after the first walk found its code: the second walk names it */
	struct hs_mem hm = { &vm, fuzz_mem_read, m, st, m, c, h[7] & 4, c ? 2 : 0, c ? 1 : 0 };
	struct hs_record rec[HS_MAX_RECORDS];
	size_t n = walk(&hm, h, rec);
	if (c && walk(&hm, h, rec) != n) /* the second walk, from the cache, finds as much */
		__builtin_trap();
	/* the names the unwinder child reads during the window (hs_namecache.c), each pair twice */
	struct hs_namecache *nc = NULL;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++)
			if (!(rec[i].flags & (HS_R_STUB | HS_R_LOST)) && rec[i].stamp)
				hs_namecache_note(&nc, &hm, rec[i].addr, rec[i].stamp);
	hs_namecache_each(nc, kept_name, NULL);
	hs_namecache_free(nc);
	char name[HS_NAME_MAX];
	for (size_t i = 0; i < n; i++) {
		int rc = rec[i].flags & HS_R_STUB ? hs_blob_name(&hm, rec[i].addr, name, sizeof(name))
						   : hs_method_name(&hm, rec[i].addr, name, sizeof(name));
		/* the memory has not changed since the walk: a method's stamp is the same when read again */
		uint32_t stamp;
		if (!(rec[i].flags & (HS_R_STUB | HS_R_LOST)) && rec[i].stamp &&
		    (hs_method_stamp(&hm, rec[i].addr, &stamp) || stamp != rec[i].stamp))
			__builtin_trap();
		/* what ptop emits: NUL-terminated within the buffer, no control byte */
		if (rc == 0) {
			size_t len = strnlen(name, sizeof(name));
			if (len == sizeof(name))
				__builtin_trap();
			for (size_t k = 0; k < len; k++)
				if ((unsigned char)name[k] < 0x20)
					__builtin_trap();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < HDR)
		return 0;
	struct fuzz_mem m = { data + HDR, size - HDR };
	switch (data[0] % 4) {
	case 0:
	case 1:
		walk_and_name(data, &m);
		break;
	case 2: {
		struct hs_elf_syms s;
		for (int k = 0; k < HS_SYM__COUNT; k++)
			s.addr[k] = BASE + 8ull * (uint64_t)k;
		struct hs_vm vm;
		char why[160];
		if (hs_vm_open(fuzz_mem_read, &m, &s, &vm, why, sizeof(why)) && strnlen(why, sizeof(why)) == sizeof(why))
			__builtin_trap();
		break;
	}
	default: {
		struct hs_elf_syms s;
		(void)hs_elf_find_mem(m.p, m.n, BASE, 0, &s);
		char sig[64];
		hs_signature_text((const char *)m.p, m.n < 200 ? m.n : 200, sig, sizeof(sig));
		if (strnlen(sig, sizeof(sig)) == sizeof(sig))
			__builtin_trap();
	}
	}
	return 0;
}
