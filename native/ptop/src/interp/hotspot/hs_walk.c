#include "hs_walk.h"
#include <string.h>

#define MAX_HEAPS 8
#define MAX_SEGMAP_HOPS 4096 /* a block is at most this many segment-map hops from a pc inside it */
#define MAX_PCDESCS (1u << 20)
#define MAX_INLINE_DEPTH 32
#define MAX_FRAME_BYTES (1u << 20) /* a frame larger than this is no frame */

static int rd64(const struct hs_mem *m, uint64_t a, uint64_t *v)
{
	return m->rd(m->rd_ctx, a, v, 8);
}

static int rd32(const struct hs_mem *m, uint64_t a, int32_t *v)
{
	return m->rd(m->rd_ctx, a, v, 4);
}

bool hs_in_code(const struct hs_vm *vm, uint64_t pc)
{
	return vm && pc >= vm->code_low && pc < vm->code_high;
}

/* The code blob holding pc, through the segment map of the code heap that holds it: each map
 * byte says how many segments back its block begins (0: here, 0xff: free). 0 when none. */
static uint64_t find_blob(const struct hs_mem *m, uint64_t pc)
{
	const struct hs_vm *vm = m->vm;
	uint64_t arr, heaps;
	int32_t len;
	if (rd64(m, vm->codecache_heaps, &arr) || !arr || rd32(m, arr + vm->off_growable_len, &len) ||
	    rd64(m, arr + vm->growable_data, &heaps) || len <= 0)
		return 0;
	for (int32_t i = 0; i < len && i < MAX_HEAPS; i++) {
		uint64_t heap, low, high, segmap;
		int32_t log2;
		if (rd64(m, heaps + 8ull * (uint64_t)i, &heap) || rd64(m, heap + vm->heap_memory + vm->vs_low, &low) ||
		    rd64(m, heap + vm->heap_memory + vm->vs_high, &high))
			return 0;
		if (pc < low || pc >= high)
			continue;
		if (rd64(m, heap + vm->heap_segmap + vm->vs_low, &segmap) || rd32(m, heap + vm->heap_log2_seg, &log2) ||
		    log2 < 4 || log2 > 16)
			return 0;
		uint64_t seg = (pc - low) >> log2;
		for (int hop = 0; hop < MAX_SEGMAP_HOPS; hop++) {
			uint8_t b;
			if (m->rd(m->rd_ctx, segmap + seg, &b, 1) || b == 0xff)
				return 0;
			if (b == 0)
				break;
			if (b > seg)
				return 0;
			seg -= b;
		}
		uint64_t block = low + (seg << log2);
		uint8_t used;
		if (m->rd(m->rd_ctx, block + vm->heapblock_used, &used, 1) || !used)
			return 0;
		uint64_t blob = block + vm->size_heapblock;
		int32_t size;
		if (rd32(m, blob + vm->blob_size, &size) || size <= 0 || pc < blob || pc - blob >= (uint64_t)size)
			return 0;
		return blob;
	}
	return 0;
}

enum blob_kind { B_NMETHOD, B_NATIVE, B_INTERPRETER, B_STUB };

static int blob_kind(const struct hs_mem *m, uint64_t blob, enum blob_kind *k)
{
	uint64_t np;
	char name[16] = { 0 };
	if (rd64(m, blob + m->vm->blob_name, &np) || m->rd(m->rd_ctx, np, name, sizeof(name) - 1))
		return -1;
	*k = !strcmp(name, "nmethod") ? B_NMETHOD : !strcmp(name, "native nmethod") ? B_NATIVE :
	     !strcmp(name, "Interpreter") ? B_INTERPRETER : B_STUB;
	return 0;
}

bool hs_method_ok(const struct hs_mem *m, uint64_t method)
{
	const struct hs_vm *vm = m->vm;
	uint64_t cm, cp, holder, back;
	if (!method || (method & 7) || rd64(m, method + vm->method_const, &cm) || !cm || (cm & 7) ||
	    rd64(m, cm + vm->cmethod_constants, &cp) || !cp || (cp & 7) || rd64(m, cp + vm->cpool_holder, &holder) ||
	    !holder || (holder & 7) || rd64(m, holder + vm->iklass_constants, &back))
		return false;
	return back == cp;
}

/* HotSpot's compressed ints (CompressedReadStream, UNSIGNED5): a byte below 192 ends the number;
 * each byte weighs 64 times the one before; at most 5 bytes. */
static int read_uint(const uint8_t *b, size_t len, size_t *pos, uint32_t *out)
{
	uint32_t sum = 0;
	for (int i = 0, shift = 0; i < 5; i++, shift += 6) {
		if (*pos >= len)
			return -1;
		uint32_t x = b[(*pos)++];
		sum += x << shift;
		if (x < 192 || i == 4) {
			*out = sum;
			return 0;
		}
	}
	return -1;
}

/* The PcDesc of an nmethod at pc offset off: exact (a return address must be a call site), or for
 * the leaf the first at or after it, else the last: a hot loop's code lies before its back-edge's
 * safepoint poll, whose scope is the loop's (inlined) method; the last one before it would be the
 * entry or an earlier call, often of the caller. */
static int find_pcdesc(const struct hs_mem *m, uint64_t nm, uint32_t off, bool exact, int32_t *scope)
{
	const struct hs_vm *vm = m->vm;
	int32_t pcs_off, end_off;
	if (rd32(m, nm + vm->nm_scopes_pcs_offset, &pcs_off) || rd32(m, nm + vm->nm_dependencies_offset, &end_off) ||
	    pcs_off <= 0 || end_off < pcs_off)
		return -1;
	uint64_t n = ((uint64_t)end_off - (uint64_t)pcs_off) / vm->size_pcdesc;
	if (n == 0 || n > MAX_PCDESCS)
		return -1;
	uint64_t base = nm + (uint64_t)pcs_off, lo = 0, hi = n;
	while (lo < hi) { /* the first whose pc offset is >= off */
		uint64_t mid = lo + (hi - lo) / 2;
		int32_t p;
		if (rd32(m, base + mid * vm->size_pcdesc + vm->pcdesc_pc_offset, &p))
			return -1;
		if ((int64_t)p < (int64_t)off) /* signed: the first PcDesc's offset is -1 */
			lo = mid + 1;
		else
			hi = mid;
	}
	int32_t p;
	if (lo < n && rd32(m, base + lo * vm->size_pcdesc + vm->pcdesc_pc_offset, &p))
		return -1;
	if (exact && (lo == n || (int64_t)p != (int64_t)off))
		return -1;
	if (!exact && lo == n) { /* the leaf past the last PcDesc: the last one */
		if (lo == 0)
			return -1;
		lo--;
	}
	return rd32(m, base + lo * vm->size_pcdesc + vm->pcdesc_scope_offset, scope);
}

static void put(struct hs_record *out, size_t cap, size_t *n, uint64_t addr, uint32_t idx, uint16_t flags, uint32_t why)
{
	if (*n < cap)
		out[(*n)++] = (struct hs_record){ addr, (uint16_t)idx, flags, why };
}

/* An nmethod's methods at pc, innermost first: the scope chain of its PcDesc, each scope's method
 * from the nmethod's metadata table. */
static int nmethod_records(const struct hs_mem *m, uint64_t nm, uint64_t pc, bool leaf, bool native, uint32_t idx,
			   struct hs_record *out, size_t cap, size_t *n, uint32_t *why)
{
	const struct hs_vm *vm = m->vm;
	uint64_t code_begin, method, scopes;
	int32_t meta_off;
	if (rd64(m, nm + vm->blob_code_begin, &code_begin) || pc < code_begin || pc - code_begin > (1u << 30) ||
	    rd64(m, nm + vm->off_method, &method) || rd64(m, nm + vm->off_scopes_data_begin, &scopes) ||
	    rd32(m, nm + vm->nm_metadata_offset, &meta_off) || meta_off <= 0) {
		*why = HS_LOST_READ;
		return -1;
	}
	int32_t scope = 0; /* a native method's wrapper: its method, no scopes */
	if (!native && find_pcdesc(m, nm, (uint32_t)(pc - code_begin), !leaf, &scope)) {
		if (!leaf) {
			*why = HS_LOST_CALLER;
			return -1;
		}
		scope = 0; /* past the last safepoint: the nmethod's own method only */
	}
	uint64_t meta = nm + (uint64_t)meta_off;
	size_t first = *n;
	for (int depth = 0; scope > 0 && depth < MAX_INLINE_DEPTH; depth++) {
		uint8_t b[16];
		size_t pos = 0;
		uint32_t sender, index;
		if (m->rd(m->rd_ctx, scopes + (uint64_t)scope, b, sizeof(b)) || read_uint(b, sizeof(b), &pos, &sender) ||
		    read_uint(b, sizeof(b), &pos, &index) || index == 0 || meta + 8ull * index > scopes) {
			*why = HS_LOST_READ;
			return -1;
		}
		uint64_t sm;
		if (rd64(m, meta + 8ull * (index - 1), &sm) || !hs_method_ok(m, sm)) {
			*why = HS_LOST_METHOD;
			return -1;
		}
		put(out, cap, n, sm, idx, HS_R_COMPILED | HS_R_INLINED, 0);
		if ((int32_t)sender >= scope && sender != 0) { /* a sender lies before its callee in the stream */
			*why = HS_LOST_READ;
			return -1;
		}
		scope = (int32_t)sender;
	}
	if (*n == first) {
		if (!hs_method_ok(m, method)) {
			*why = HS_LOST_METHOD;
			return -1;
		}
		put(out, cap, n, method, idx, HS_R_COMPILED, 0);
	}
	if (*n > first)
		out[*n - 1].flags &= (uint16_t)~HS_R_INLINED; /* the outermost is the nmethod's own */
	return 0;
}

/* Whether a caller pc is a place a Java frame returns to: a call site of an nmethod (exact PcDesc),
 * the interpreter, or a stub; native code is reached only through a stub. */
static bool caller_ok(const struct hs_mem *m, uint64_t pc)
{
	if (!hs_in_code(m->vm, pc))
		return false;
	uint64_t blob = find_blob(m, pc);
	enum blob_kind k;
	if (!blob || blob_kind(m, blob, &k))
		return false;
	if (k != B_NMETHOD)
		return true;
	uint64_t code_begin;
	int32_t scope;
	return !rd64(m, blob + m->vm->blob_code_begin, &code_begin) && pc > code_begin &&
	       !find_pcdesc(m, blob, (uint32_t)(pc - code_begin), true, &scope);
}

/* The caller of a frame whose return address is the word below sender_sp and whose saved frame
 * pointer the one below that (compiled code and stubs with a frame size). */
static int sized_caller(const struct hs_mem *m, uint64_t sender_sp, bool fp_saved, struct hs_regs *r)
{
	uint64_t ret, fp = r->fp;
	if (m->st(m->st_ctx, sender_sp - 8, &ret) || (fp_saved && m->st(m->st_ctx, sender_sp - 16, &fp)))
		return -1;
	*r = (struct hs_regs){ ret, sender_sp, fp };
	return 0;
}

/* The caller through a frame-pointer frame: [fp] the caller's fp, [fp + 8] the return address. */
static int fp_caller(const struct hs_mem *m, struct hs_regs *r, uint64_t sp)
{
	uint64_t fp, ret;
	if (r->fp < r->sp || r->fp - r->sp > MAX_FRAME_BYTES || m->st(m->st_ctx, r->fp, &fp) ||
	    m->st(m->st_ctx, r->fp + 8, &ret))
		return -1;
	*r = (struct hs_regs){ ret, sp ? sp : r->fp + 16, fp };
	return 0;
}

static int interpreted(const struct hs_mem *m, struct hs_regs *r, uint32_t idx, struct hs_record *out, size_t cap,
		       size_t *n, uint32_t *why)
{
	const struct hs_vm *vm = m->vm;
	uint64_t method, sender_sp;
	if (r->fp < r->sp || r->fp - r->sp > MAX_FRAME_BYTES ||
	    m->st(m->st_ctx, r->fp + (uint64_t)(vm->fr_method * 8), &method) ||
	    m->st(m->st_ctx, r->fp + (uint64_t)(vm->fr_sender_sp * 8), &sender_sp)) {
		*why = HS_LOST_FRAME;
		return -1;
	}
	if (!hs_method_ok(m, method)) {
		*why = HS_LOST_METHOD;
		return -1;
	}
	put(out, cap, n, method, idx, HS_R_INTERPRETED, 0);
	return fp_caller(m, r, sender_sp) ? (*why = HS_LOST_FRAME, -1) : 0;
}

/* A frame of known size; at the leaf it may not be built yet (prologue) or torn down already
 * (epilogue): then the return address is at sp or just above the saved fp, whichever is a
 * place a Java frame returns to. */
static int sized(const struct hs_mem *m, struct hs_regs *r, uint64_t blob, bool leaf, uint32_t *why)
{
	int32_t words;
	if (rd32(m, blob + m->vm->blob_frame_size, &words) || words < 2 || (uint64_t)words * 8 > MAX_FRAME_BYTES) {
		*why = HS_LOST_FRAME;
		return -1;
	}
	struct hs_regs c = *r;
	if (!sized_caller(m, r->sp + 8ull * (uint64_t)words, true, &c) && caller_ok(m, c.pc)) {
		*r = c;
		return 0;
	}
	if (leaf) {
		c = *r;
		if (!sized_caller(m, r->sp + 8, false, &c) && caller_ok(m, c.pc)) {
			*r = c;
			return 0;
		}
		c = *r;
		if (!sized_caller(m, r->sp + 16, true, &c) && caller_ok(m, c.pc)) {
			*r = c;
			return 0;
		}
	}
	*why = HS_LOST_CALLER;
	return -1;
}

int hs_step(const struct hs_mem *m, struct hs_regs *r, bool leaf, uint32_t idx, struct hs_record *out, size_t cap,
	    size_t *n, uint32_t *why)
{
	uint64_t blob = find_blob(m, r->pc);
	enum blob_kind k;
	if (!blob || blob_kind(m, blob, &k)) {
		*why = HS_LOST_NO_BLOB;
		return HS_STEP_FAIL;
	}
	uint64_t pc = r->pc;
	int rc;
	switch (k) {
	case B_INTERPRETER:
		rc = interpreted(m, r, idx, out, cap, n, why);
		break;
	case B_NMETHOD:
	case B_NATIVE: {
		size_t first = *n;
		if (nmethod_records(m, blob, pc, leaf, k == B_NATIVE, idx, out, cap, n, why))
			return HS_STEP_FAIL;
		if (k == B_NATIVE)
			for (size_t i = first; i < *n; i++)
				out[i].flags = HS_R_NATIVE;
		rc = sized(m, r, blob, leaf, why);
		break;
	}
	default: {
		/* a stub: its frame size when it has one (runtime stubs), else a frame-pointer frame (the
		 * call stub, Java's entry from the VM) */
		int32_t words;
		if (rd32(m, blob + m->vm->blob_frame_size, &words)) {
			*why = HS_LOST_READ;
			return HS_STEP_FAIL;
		}
		put(out, cap, n, blob, idx, HS_R_STUB, 0);
		if (words >= 2)
			rc = sized(m, r, blob, leaf, why);
		else if ((rc = fp_caller(m, r, 0)))
			*why = HS_LOST_FRAME;
		break;
	}
	}
	if (rc)
		return HS_STEP_FAIL;
	return hs_in_code(m->vm, r->pc) ? HS_STEP_JAVA : HS_STEP_NATIVE;
}
