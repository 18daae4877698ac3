#include "hs_walk.h"
#include "hs_names.h"
#include <stddef.h>
#include <string.h>

#define MAX_HEAPS 8
#define MAX_SEGMAP_HOPS 4096 /* a block is at most this many segment-map hops from a pc inside it */
#define MAX_PCDESCS (1u << 20)
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
	uint64_t *seen = m->cache ? &m->cache->methods[(method >> 3) % HS_CACHE_METHODS] : NULL;
	if (seen && method && *seen == method)
		return true;
	uint64_t cm, cp, holder, back, back_holder;
	if (!method || (method & 7) || rd64(m, method + vm->method_const, &cm) || !cm || (cm & 7) ||
	    rd64(m, cm + vm->cmethod_constants, &cp) || !cp || (cp & 7) || rd64(m, cp + vm->cpool_holder, &holder) ||
	    !holder || (holder & 7) || rd64(m, holder + vm->iklass_constants, &back) || !back || (back & 7))
		return false;
	/* A method of a redefined class's earlier version (still running, or EMCP) keeps the pool it
	 * was parsed with, whose holder is still the class; the class has its new pool since. */
	if (back != cp && (rd64(m, back + vm->cpool_holder, &back_holder) || back_holder != holder))
		return false;
	/* Methods live as long as their class: a name is checked again when it is read (hs_names.c). */
	if (seen)
		*seen = method;
	return true;
}

/* HotSpot's compressed ints (CompressedReadStream, UNSIGNED5): a byte below 192 ends the number;
 * each byte, less x (bytes below x are never written), weighs 64 times the one before; at most 5. */
static int read_uint(const uint8_t *b, size_t len, unsigned xb, size_t *pos, uint32_t *out)
{
	uint32_t sum = 0;
	for (int i = 0, shift = 0; i < 5; i++, shift += 6) {
		if (*pos >= len)
			return -1;
		uint32_t x = b[(*pos)++];
		if (x < xb)
			return -1;
		sum += (x - xb) << shift;
		if (x < 192 || i == 4) {
			*out = sum;
			return 0;
		}
	}
	return -1;
}

/* Where an nmethod's code and tables are (hs_vm.h, nm_layout). */
struct nm_tables {
	uint64_t code_begin, pcs, pcs_end, scopes, meta, meta_end;
};

static int nm_tables(const struct hs_mem *m, uint64_t nm, struct nm_tables *t)
{
	const struct hs_vm *vm = m->vm;
	int32_t a, b, c;
	if (vm->nm_layout == HS_NM_IN_BLOB) {
		if (rd64(m, nm + vm->blob_code_begin, &t->code_begin) || rd32(m, nm + vm->nm_scopes_pcs_offset, &a) ||
		    rd32(m, nm + vm->nm_dependencies_offset, &b) || rd64(m, nm + vm->off_scopes_data_begin, &t->scopes) ||
		    rd32(m, nm + vm->nm_metadata_offset, &c) || a <= 0 || b < a || c <= 0)
			return -1;
		t->pcs = nm + (uint64_t)a;
		t->pcs_end = nm + (uint64_t)b;
		t->meta = nm + (uint64_t)c;
		t->meta_end = t->scopes;
		return 0;
	}
	uint64_t imm, mut;
	int32_t code, reloc, mut_size;
	if (rd32(m, nm + vm->blob_code_offset, &code) || rd64(m, nm + vm->nm_immutable_data, &imm) ||
	    rd32(m, nm + vm->nm_scopes_pcs_offset, &a) || rd32(m, nm + vm->nm_scopes_data_offset, &b) ||
	    rd64(m, nm + vm->blob_mutable_data, &mut) || rd32(m, nm + vm->blob_relocation_size, &reloc) ||
	    rd32(m, nm + vm->blob_mutable_data_size, &mut_size) || code <= 0 || !imm || a < 0 || b < a || !mut ||
	    reloc < 0 || mut_size < reloc)
		return -1;
	t->code_begin = nm + (uint64_t)code;
	t->pcs = imm + (uint64_t)a;
	t->pcs_end = t->scopes = imm + (uint64_t)b;
	t->meta = mut + (uint64_t)reloc;
	t->meta_end = mut + (uint64_t)mut_size;
	return 0;
}

/* The PcDesc of an nmethod at pc offset off: exact (a return address must be a call site), or for
 * the leaf the first at or after it, else the last: a hot loop's code lies before its back-edge's
 * safepoint poll, whose scope is the loop's (inlined) method; the last one before it would be the
 * entry or an earlier call, often of the caller. */
static int find_pcdesc(const struct hs_mem *m, const struct nm_tables *t, uint32_t off, bool exact, int32_t *scope)
{
	const struct hs_vm *vm = m->vm;
	uint64_t n = (t->pcs_end - t->pcs) / vm->size_pcdesc;
	if (n == 0 || n > MAX_PCDESCS)
		return -1;
	uint64_t base = t->pcs, lo = 0, hi = n;
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

/* What a pc in the code cache is: its blob and the blob's kind and frame size and, in an nmethod,
 * the methods at that pc (innermost first). exact: pc is a return address, which must be a call
 * site (a PcDesc at exactly its offset); otherwise the leaf's pc. */
/* An nmethod's methods at pc: the scope chain of its PcDesc, each scope's method from the
 * nmethod's metadata table; a native method's wrapper has its method only. */
static uint32_t nmethod_methods(const struct hs_mem *m, uint64_t nm, uint64_t pc, bool exact, struct hs_ident *id)
{
	const struct hs_vm *vm = m->vm;
	struct nm_tables t;
	uint64_t method;
	if (nm_tables(m, nm, &t) || pc < t.code_begin || pc - t.code_begin > (1u << 30) || rd64(m, nm + vm->off_method, &method))
		return HS_LOST_READ;
	/* Up to JDK 19 an nmethod unloaded with its classes keeps its code until the sweeper frees
	 * it, its _method cleared: its metadata may be freed and reused by now */
	if (!method)
		return HS_LOST_NO_BLOB;
	int32_t scope = 0;
	if (id->kind == B_NMETHOD && find_pcdesc(m, &t, (uint32_t)(pc - t.code_begin), exact, &scope)) {
		if (exact)
			return HS_LOST_CALLER;
		scope = 0; /* no PcDesc at all: the nmethod's own method only */
	}
	for (int depth = 0; scope > 0 && depth < HS_MAX_INLINE; depth++) {
		uint8_t b[16];
		size_t pos = 0;
		uint32_t sender, index;
		uint64_t sm;
		if (m->rd(m->rd_ctx, t.scopes + (uint64_t)scope, b, sizeof(b)) ||
		    read_uint(b, sizeof(b), vm->unsigned5_x, &pos, &sender) ||
		    read_uint(b, sizeof(b), vm->unsigned5_x, &pos, &index) || index == 0 || t.meta + 8ull * index > t.meta_end ||
		    (sender != 0 && (int32_t)sender >= scope)) /* a sender lies before its callee in the stream */
			return HS_LOST_READ;
		if (rd64(m, t.meta + 8ull * (index - 1), &sm) || !hs_method_ok(m, sm))
			return HS_LOST_METHOD;
		id->stamps[id->nrec] = hs_method_stamp(m, sm, &id->stamps[id->nrec]) ? 0 : id->stamps[id->nrec];
		id->methods[id->nrec++] = sm;
		scope = (int32_t)sender;
	}
	if (id->nrec == 0) {
		if (!hs_method_ok(m, method))
			return HS_LOST_METHOD;
		id->stamps[id->nrec] = hs_method_stamp(m, method, &id->stamps[id->nrec]) ? 0 : id->stamps[id->nrec];
		id->methods[id->nrec++] = method;
	}
	return 0;
}

static void identify_uncached(const struct hs_mem *m, uint64_t pc, bool exact, struct hs_ident *id)
{
	memset(id, 0, offsetof(struct hs_ident, methods));
	id->blob = find_blob(m, pc);
	enum blob_kind kind;
	if (!id->blob || blob_kind(m, id->blob, &kind)) {
		id->why = HS_LOST_NO_BLOB;
		return;
	}
	id->kind = kind;
	if (id->kind != B_INTERPRETER && rd32(m, id->blob + m->vm->blob_frame_size, &id->words)) {
		id->why = HS_LOST_READ;
		return;
	}
	if (id->kind == B_NMETHOD || id->kind == B_NATIVE)
		id->why = nmethod_methods(m, id->blob, pc, exact, id);
}

/* The fingerprint a cached identity is checked against before each use: the blob's heap block
 * header (its length and whether it is used) and, for an nmethod, its compile id. Code freed,
 * or replaced by other code at the same place, changes it. */
static int fingerprint(const struct hs_mem *m, struct hs_ident *id, uint64_t fp[2])
{
	const struct hs_vm *vm = m->vm;
	int32_t compile_id = 0;
	if (m->rd(m->rd_ctx, id->blob - vm->size_heapblock, fp, 16) ||
	    ((id->kind == B_NMETHOD || id->kind == B_NATIVE) && rd32(m, id->blob + vm->nm_compile_id, &compile_id)))
		return -1;
	id->compile_id = compile_id;
	fp[1] ^= (uint64_t)(uint32_t)compile_id << 32;
	return 0;
}

/* Whether the nmethod of id was in place when the sample was taken. The walk reads the code cache
 * after the sample (README "Java frames"): code of a class unloaded in between may be freed and the
 * same-shaped code of the next one compiled at the same address, whose methods are not the
 * sample's. An nmethod (address and compile id, checked in place by fingerprint()) found by an
 * earlier walk at a time before the sample was there from then until now, so at the sample. */
static bool seen_before(const struct hs_mem *m, const struct hs_ident *id)
{
	struct hs_seen *s = &m->cache->seen[(id->blob >> 4) % HS_CACHE_SEEN];
	if (s->blob == id->blob && s->compile_id == id->compile_id)
		return s->seen_ns <= m->sample_ns;
	*s = (struct hs_seen){ id->blob, m->now_ns, id->compile_id };
	return false;
}

static void identify(const struct hs_mem *m, uint64_t pc, bool exact, struct hs_ident *id)
{
	struct hs_cache *c = m->cache;
	if (!c || !m->vm->have_compile_id) {
		identify_uncached(m, pc, exact, id);
		return;
	}
	struct hs_cached *e = &c->slot[((pc >> 2) ^ exact) % HS_CACHE_SLOTS];
	uint64_t fp[2];
	if (e->pc == pc && e->exact == exact && e->id.blob && !fingerprint(m, &e->id, fp) && fp[0] == e->fp[0] &&
	    fp[1] == e->fp[1]) {
		*id = e->id;
		c->hits++;
	} else {
		c->misses++;
		identify_uncached(m, pc, exact, id);
		/* only answers are kept, not failures (a blob being installed may be there at the next look) */
		if (id->blob && id->why == 0 && !fingerprint(m, id, e->fp)) {
			e->pc = pc;
			e->exact = exact;
			e->id = *id;
		} else {
			e->pc = 0;
			return;
		}
	}
	id->at_sample = m->sample_ns && m->now_ns && (id->kind == B_NMETHOD || id->kind == B_NATIVE) && seen_before(m, id);
}

/* A return address the VM patched to its nmethod's deopt handler (that frame is being
 * deoptimised): the pc it replaced, which the VM keeps in the frame at frame_sp + _orig_pc_offset,
 * provided it is a call site of the same nmethod (then id is its identity); else 0. */
static uint64_t deopt_orig_pc(const struct hs_mem *m, uint64_t pc, uint64_t frame_sp, struct hs_ident *id)
{
	const struct hs_vm *vm = m->vm;
	uint64_t blob = id->blob, handler = 0, orig;
	int32_t off, orig_off;
	if (id->why != HS_LOST_CALLER || id->kind != B_NMETHOD)
		return 0;
	if (vm->deopt == HS_DEOPT_ADDRESS && rd64(m, blob + vm->cm_deopt_handler_begin, &handler))
		return 0;
	if (vm->deopt == HS_DEOPT_OFFSET && (rd32(m, blob + vm->nm_deopt_handler_offset, &off) || off <= 0 ||
					     (handler = blob + (uint64_t)off, false)))
		return 0;
	if (!handler || pc != handler || rd32(m, blob + vm->nm_orig_pc_offset, &orig_off) || orig_off < 0 ||
	    orig_off > (int32_t)MAX_FRAME_BYTES || m->st(m->st_ctx, frame_sp + (uint64_t)orig_off, &orig) || orig == pc)
		return 0;
	struct hs_ident at_orig;
	identify(m, orig, true, &at_orig);
	if (at_orig.why || at_orig.blob != blob)
		return 0;
	*id = at_orig;
	return orig;
}

/* why: a lost record's HS_LOST_*, a method's stamp */
static void put(struct hs_record *out, size_t cap, size_t *n, uint64_t addr, uint32_t idx, uint16_t flags, uint32_t why)
{
	if (*n < cap)
		out[(*n)++] = (struct hs_record){ addr, (uint16_t)idx, flags, { why } };
}

/* Whether a caller pc is a place a Java frame returns to: a call site of an nmethod (exact PcDesc),
 * the interpreter, or a stub; native code is reached only through a stub. */
static bool caller_ok(const struct hs_mem *m, uint64_t pc, uint64_t sp)
{
	if (!hs_in_code(m->vm, pc))
		return false;
	struct hs_ident id;
	identify(m, pc, true, &id);
	return (id.why == 0 || deopt_orig_pc(m, pc, sp, &id)) && id.kind != B_NATIVE;
}

/* The caller of a frame whose return address is the word below sender_sp and whose saved frame
 * pointer the one below that (compiled code and stubs with a frame size). */
static int sized_caller(const struct hs_mem *m, uint64_t sender_sp, bool fp_saved, struct hs_regs *r)
{
	uint64_t ret, fp = r->fp;
	if (m->st(m->st_ctx, sender_sp - 8, &ret) || (fp_saved && m->st(m->st_ctx, sender_sp - 16, &fp)))
		return -1;
	*r = (struct hs_regs){ ret, sender_sp, fp, 0, false };
	return 0;
}

/* The caller through a frame-pointer frame: [fp] the caller's fp, [fp + 8] the return address. */
static int fp_caller(const struct hs_mem *m, struct hs_regs *r, uint64_t sp)
{
	uint64_t fp, ret;
	if (r->fp < r->sp || r->fp - r->sp > MAX_FRAME_BYTES || m->st(m->st_ctx, r->fp, &fp) ||
	    m->st(m->st_ctx, r->fp + 8, &ret))
		return -1;
	*r = (struct hs_regs){ ret, sp ? sp : r->fp + 16, fp, 0, false };
	return 0;
}

/* Whether the frame's bytecode pointer, as the sample caught it, lies in method's bytecodes (which
 * follow its ConstMethod), or is 0 (a native method's frame has none). A Method freed and reused by
 * another method between the sample and the walk has its bytecodes elsewhere: that frame is not
 * named from it. Not caught so: reuse by a method of the same shape at the same addresses. */
static bool bcp_ok(const struct hs_mem *m, const struct hs_regs *r, uint64_t method)
{
	const struct hs_vm *vm = m->vm;
	uint64_t bcp, cm;
	uint16_t code_size;
	if (!vm->fr_bcp)
		return true;
	if (m->st(m->st_ctx, r->fp + (uint64_t)(vm->fr_bcp * 8), &bcp) || rd64(m, method + vm->method_const, &cm) ||
	    m->rd(m->rd_ctx, cm + vm->cmethod_code_size, &code_size, 2))
		return false;
	return bcp == 0 || (bcp >= cm + vm->size_cmethod && bcp - (cm + vm->size_cmethod) <= code_size);
}

/* Whether the frame's class mirror slot, as the sample caught it, holds the java.lang.Class its
 * method's holder has now (Klass::_java_mirror, an OopHandle: a pointer to the oop). A class
 * unloaded between the sample and the walk, its metaspace reused by a class of the same shape (same
 * Method*, same bytecode addresses: bcp_ok() cannot tell), has a new mirror in the Java heap. A GC
 * that moved the mirror in between fails the check too: that frame is lost, never misnamed. */
static bool mirror_ok(const struct hs_mem *m, const struct hs_regs *r, uint64_t method)
{
	const struct hs_vm *vm = m->vm;
	uint64_t slot, cm, cp, holder, handle, oop;
	if (!vm->fr_mirror)
		return true;
	return !m->st(m->st_ctx, r->fp + (uint64_t)(vm->fr_mirror * 8), &slot) && slot &&
	       !rd64(m, method + vm->method_const, &cm) && !rd64(m, cm + vm->cmethod_constants, &cp) &&
	       !rd64(m, cp + vm->cpool_holder, &holder) &&
	       !rd64(m, holder + vm->klass_mirror + vm->oophandle_obj, &handle) && handle &&
	       !rd64(m, handle, &oop) && oop == slot;
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
	if (!hs_method_ok(m, method) || !bcp_ok(m, r, method) || !mirror_ok(m, r, method)) {
		*why = HS_LOST_METHOD;
		return -1;
	}
	/* the Method* comes from the stack: its stamp is kept only while its names' pointers hold */
	uint32_t stamp;
	put(out, cap, n, method, idx, HS_R_INTERPRETED, hs_method_stamp_kept(m, method, &stamp) ? 0 : stamp);
	return fp_caller(m, r, sender_sp) ? (*why = HS_LOST_FRAME, -1) : 0;
}

/* A frame of known size; at the leaf it may not be built yet (prologue) or torn down already
 * (epilogue). Then on amd64 the return address is at sp (the call pushed it) or just above the
 * saved fp (after push rbp). On arm64 a call leaves it in the link register, which the prologue
 * stores with the fp as a pair ([sp] fp, [sp + 8] lr: stp x29, x30, [sp, #-16]!) before or after
 * it lowers sp by the rest of the frame; until that store, and again after the epilogue's
 * ldp/add, it is in lr with sp at the caller's. Whichever is a place a Java frame returns to.
 * Above native code on arm64, compiled code that calls the VM's C++ directly leaves a breadcrumb for
 * the VM's own stack walks: it pushes 16 bytes (stp zr, <return address>, [sp, #-16]!) just
 * before the call, so its frame lies 16 bytes above the sp its callee returns to. */
static int sized(const struct hs_mem *m, struct hs_regs *r, int32_t words, bool leaf, uint32_t *why)
{
	if (words < 2 || (uint64_t)words * 8 > MAX_FRAME_BYTES) {
		*why = HS_LOST_FRAME;
		return -1;
	}
	struct hs_regs c = *r;
	if (!sized_caller(m, r->sp + 8ull * (uint64_t)words, true, &c) && caller_ok(m, c.pc, c.sp)) {
		*r = c;
		return 0;
	}
	c = *r;
	if (m->arm64 && r->native_callee && !sized_caller(m, r->sp + 16 + 8ull * (uint64_t)words, true, &c) && caller_ok(m, c.pc, c.sp)) {
		*r = c;
		return 0;
	}
	if (leaf) {
		if (m->arm64 && r->lr && caller_ok(m, r->lr, r->sp)) {
			*r = (struct hs_regs){ r->lr, r->sp, r->fp, 0, false };
			return 0;
		}
		c = *r;
		if (!m->arm64 && !sized_caller(m, r->sp + 8, false, &c) && caller_ok(m, c.pc, c.sp)) {
			*r = c;
			return 0;
		}
		c = *r;
		if (!sized_caller(m, r->sp + 16, true, &c) && caller_ok(m, c.pc, c.sp)) {
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
	struct hs_ident id;
	identify(m, r->pc, !leaf, &id);
	if (id.why && !leaf)
		deopt_orig_pc(m, r->pc, r->sp, &id); /* a frame being deoptimised: named from its original pc */
	if (id.why) {
		*why = id.why;
		return HS_STEP_FAIL;
	}
	int rc;
	switch (id.kind) {
	case B_INTERPRETER:
		rc = interpreted(m, r, idx, out, cap, n, why);
		break;
	case B_NMETHOD:
	case B_NATIVE:
		for (size_t i = 0; i < id.nrec; i++)
			put(out, cap, n, id.methods[i], idx,
			    (id.kind == B_NATIVE ? HS_R_NATIVE : i + 1 < id.nrec ? HS_R_COMPILED | HS_R_INLINED : HS_R_COMPILED) |
				    (id.at_sample ? HS_R_AT_SAMPLE : 0),
			    id.stamps[i]);
		rc = sized(m, r, id.words, leaf, why);
		break;
	default:
		/* a stub: its frame size when it has one (runtime stubs), else a frame-pointer frame (the
		 * call stub, Java's entry from the VM) */
		put(out, cap, n, id.blob, idx, HS_R_STUB, 0);
		if (id.words >= 2)
			rc = sized(m, r, id.words, leaf, why);
		else if ((rc = fp_caller(m, r, 0)))
			*why = HS_LOST_FRAME;
		break;
	}
	if (rc)
		return HS_STEP_FAIL;
	return hs_in_code(m->vm, r->pc) ? HS_STEP_JAVA : HS_STEP_NATIVE;
}
