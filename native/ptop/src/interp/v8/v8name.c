#include "v8name.h"
#include <string.h>

#define STRING_DEPTH 8       /* cons/thin links followed */
#define CHUNK 4096           /* bytes read at a time */
#define SCOPE_SLOTS 24       /* ScopeInfo slots looked at for the name and positions */
#define SCOPE_MAX_LOCALS 8   /* context locals skipped before them: more, and no name is taken */

struct reader {
	const struct v8_layout *l;
	v8_read_fn rd;
	void *ctx;
};

static int is_heap(uint64_t v)
{
	return (v & 3) == 1;
}

static int is_smi(uint64_t v)
{
	return (v & 1) == 0;
}

static int64_t smi(uint64_t v)
{
	return (int64_t)v >> 32;
}

static int read_u64(const struct reader *r, uint64_t addr, uint64_t *v)
{
	return r->rd(r->ctx, addr, v, 8);
}

/* The instance type of the heap object `tagged` points at; -1 when unreadable. */
static int type_of(const struct reader *r, uint64_t tagged)
{
	uint64_t map;
	uint16_t t;
	if (!is_heap(tagged) || read_u64(r, tagged - 1 + (uint64_t)r->l->map, &map) || !is_heap(map) ||
	    r->rd(r->ctx, map - 1 + (uint64_t)r->l->map_type, &t, 2))
		return -1;
	return t;
}

/* Visits the characters [0, limit) of a string: cb gets runs of one-byte (wide = 0) or two-byte
 * units. Returns the units visited, -1 when the object is not a string ptop reads. */
typedef int (*chars_fn)(void *arg, const unsigned char *p, size_t n, int wide);

static int64_t visit(const struct reader *r, uint64_t s, int64_t limit, chars_fn cb, void *arg, int depth)
{
	const struct v8_layout *l = r->l;
	int t = type_of(r, s);
	int32_t len;
	if (t < 0 || t >= l->first_nonstring || depth > STRING_DEPTH ||
	    r->rd(r->ctx, s - 1 + (uint64_t)l->string_length, &len, 4) || len < 0)
		return -1;
	if (limit > len)
		limit = len;
	int repr = t & l->string_repr_mask;
	if (repr == l->thin_tag || repr == l->cons_tag) {
		uint64_t first;
		if (read_u64(r, s - 1 + (uint64_t)(repr == l->thin_tag ? l->thin_actual : l->cons_first), &first))
			return -1;
		int64_t got = visit(r, first, limit, cb, arg, depth + 1);
		if (repr == l->thin_tag || got < 0 || got >= limit)
			return got;
		uint64_t second;
		if (read_u64(r, s - 1 + (uint64_t)l->cons_second, &second))
			return -1;
		int64_t more = visit(r, second, limit - got, cb, arg, depth + 1);
		return more < 0 ? -1 : got + more;
	}
	if (repr != l->seq_tag)
		return -1; /* external and sliced strings: not read */
	int wide = (t & l->string_enc_mask) != l->one_byte_tag;
	uint64_t at = s - 1 + (uint64_t)(wide ? l->seq_two_chars : l->seq_one_chars);
	unsigned char buf[CHUNK];
	int64_t done = 0;
	while (done < limit) {
		size_t units = (size_t)(limit - done) < CHUNK / 2 ? (size_t)(limit - done) : CHUNK / 2;
		size_t bytes = wide ? units * 2 : units;
		if (r->rd(r->ctx, at + (uint64_t)done * (wide ? 2 : 1), buf, bytes) || cb(arg, buf, units, wide))
			return -1;
		done += (int64_t)units;
	}
	return done;
}

struct utf8_out {
	char *p;
	size_t n, cap;
};

static void put_utf8(struct utf8_out *o, uint32_t c)
{
	char b[3];
	size_t k;
	if (c < 0x80) {
		b[0] = (char)c;
		k = 1;
	} else if (c < 0x800) {
		b[0] = (char)(0xc0 | c >> 6);
		b[1] = (char)(0x80 | (c & 0x3f));
		k = 2;
	} else {
		if (c >= 0xd800 && c < 0xe000)
			c = 0xfffd; /* a surrogate half: replaced, not paired */
		b[0] = (char)(0xe0 | c >> 12);
		b[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		b[2] = (char)(0x80 | (c & 0x3f));
		k = 3;
	}
	if (o->n + k < o->cap) {
		memcpy(o->p + o->n, b, k);
		o->n += k;
	}
}

static int to_utf8(void *arg, const unsigned char *p, size_t n, int wide)
{
	for (size_t i = 0; i < n; i++)
		put_utf8(arg, wide ? (uint32_t)(p[2 * i] | p[2 * i + 1] << 8) : p[i]);
	return 0;
}

/* A string as UTF-8 (cut at cap - 1 bytes); 0 on success. */
static int read_string(const struct reader *r, uint64_t s, char *out, size_t cap)
{
	struct utf8_out o = { out, 0, cap };
	if (visit(r, s, (int64_t)cap, to_utf8, &o, 0) < 0)
		return -1;
	out[o.n] = 0;
	return 0;
}

static int count_lines(void *arg, const unsigned char *p, size_t n, int wide)
{
	int64_t *lines = arg;
	for (size_t i = 0; i < n; i++)
		if ((wide ? (p[2 * i] | p[2 * i + 1] << 8) : p[i]) == '\n')
			(*lines)++;
	return 0;
}

static int last_unit(void *arg, const unsigned char *p, size_t n, int wide)
{
	if (n)
		*(uint32_t *)arg = wide ? (uint32_t)(p[2 * n - 2] | p[2 * n - 1] << 8) : p[n - 1];
	return 0;
}

/* The 1-based line of source position pos: newlines before it, counted in the Script's source. */
static int32_t line_of(const struct reader *r, uint64_t script, int64_t pos)
{
	uint64_t src;
	int64_t lines = 0;
	if (pos < 0 || pos > (int64_t)V8_SOURCE_MAX || read_u64(r, script - 1 + (uint64_t)r->l->script_source, &src) ||
	    visit(r, src, pos, count_lines, &lines, 0) != pos)
		return 0;
	return (int32_t)(lines + 1);
}

/* Whether [start, end) can be a function's source range in the Script: inside the source, and
 * ending with the `}` of its body (a concise arrow body is not checked and gets no line). */
static int is_function_range(const struct reader *r, uint64_t script, int64_t start, int64_t end)
{
	uint64_t src;
	uint32_t last = 0;
	if (start < 0 || end <= start || end > (int64_t)V8_SOURCE_MAX ||
	    read_u64(r, script - 1 + (uint64_t)r->l->script_source, &src) || visit(r, src, end, last_unit, &last, 0) != end)
		return 0;
	return last == '}';
}

/* The name and source range in a ScopeInfo. Its fixed slots (flags, parameter count, context-local
 * count) and where its variable part begins are in the metadata; the variable part's optional
 * members are not: after the context locals' names and infos, the first string is the function's
 * name (its function-variable or inferred name; empty: anonymous), and its start and end positions
 * are the first two consecutive SMIs there that the Script confirms as a function's range. */
static void scope_info(const struct reader *r, uint64_t scope, uint64_t script, struct v8_fn_info *out, int64_t *start)
{
	const struct v8_layout *l = r->l;
	uint64_t slot[SCOPE_SLOTS];
	if (r->rd(r->ctx, scope - 1 + (uint64_t)l->map + 8, slot, sizeof(slot)))
		return;
	uint64_t ncl = slot[l->scope_ncontextlocals];
	if (!is_smi(ncl) || smi(ncl) < 0 || smi(ncl) > SCOPE_MAX_LOCALS)
		return;
	size_t first = (size_t)l->scope_first_vars + 2 * (size_t)smi(ncl);
	/* the first string: an empty one is an anonymous function's (later strings are other scopes') */
	for (size_t i = first; i < SCOPE_SLOTS; i++) {
		int t = is_heap(slot[i]) ? type_of(r, slot[i]) : -1;
		if (t < 0 || t >= l->first_nonstring)
			continue;
		if (read_string(r, slot[i], out->name, sizeof(out->name)))
			out->name[0] = 0;
		break;
	}
	for (size_t i = first; i + 1 < SCOPE_SLOTS; i++)
		if (is_smi(slot[i]) && is_smi(slot[i + 1]) && is_function_range(r, script, smi(slot[i]), smi(slot[i + 1]))) {
			*start = smi(slot[i]);
			return;
		}
}

int v8_function_read(const struct v8_layout *l, v8_read_fn rd, void *ctx, uint64_t sfi, uint64_t name_field,
		     uint64_t script_field, struct v8_fn_info *out)
{
	struct reader r = { l, rd, ctx };
	uint64_t name, script;
	memset(out, 0, sizeof(*out));
	if (type_of(&r, sfi) != l->type_sfi || read_u64(&r, sfi - 1 + (uint64_t)l->sfi_name, &name) ||
	    read_u64(&r, sfi - 1 + (uint64_t)l->sfi_script, &script) || name != name_field || script != script_field)
		return -1;
	/* a Script, or a DebugInfo (a function being debugged): then no file */
	int script_ok = type_of(&r, script) == l->type_script;
	if (script_ok) {
		uint64_t file;
		if (read_u64(&r, script - 1 + (uint64_t)l->script_name, &file) ||
		    read_string(&r, file, out->file, sizeof(out->file)))
			out->file[0] = 0;
	}
	int t = type_of(&r, name);
	int64_t start = -1;
	if (t >= 0 && t < l->first_nonstring) {
		if (read_string(&r, name, out->name, sizeof(out->name)))
			out->name[0] = 0;
	} else if (t == l->type_scope_info && script_ok) {
		scope_info(&r, name, script, out, &start);
	}
	if (start >= 0)
		out->line = line_of(&r, script, start);
	return 0;
}

int v8_function_read_now(const struct v8_layout *l, v8_read_fn rd, void *ctx, uint64_t sfi, struct v8_fn_info *out)
{
	struct reader r = { l, rd, ctx };
	uint64_t name, script;
	if (read_u64(&r, sfi - 1 + (uint64_t)l->sfi_name, &name) || read_u64(&r, sfi - 1 + (uint64_t)l->sfi_script, &script))
		return -1;
	return v8_function_read(l, rd, ctx, sfi, name, script, out);
}

#define POSITIONS_MAX (1u << 20) /* source position table bytes read */
#define INLINING_MAX 4096        /* inlining positions */

/* A ByteArray or FixedArray-like object of type `type`, or of its trusted twin (V8 12's
 * TrustedByteArray, TrustedFixedArray: the same layout in trusted space; 0: the V8 has none): its
 * length (elements) and data address. */
static int array_of(const struct reader *r, uint64_t obj, int type, int twin, uint64_t *data, int64_t *len)
{
	uint64_t n;
	int t = type_of(r, obj);
	if ((t != type && (!twin || t != twin)) || read_u64(r, obj - 1 + (uint64_t)r->l->array_length, &n) ||
	    !is_smi(n) || smi(n) < 0)
		return -1;
	*len = smi(n);
	*data = obj - 1 + (uint64_t)r->l->array_data;
	return 0;
}

/* One VLQ-coded, zigzag-signed value of V8's source position table. */
static int vlq(const unsigned char *p, size_t len, size_t *at, int64_t *out)
{
	uint64_t u = 0;
	for (unsigned shift = 0; shift < 64 && *at < len; shift += 7) {
		unsigned char b = p[(*at)++];
		u |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
			return 0;
		}
	}
	return -1;
}

/* The source position in force at code offset `off`: the last entry at or before it. V8's table is
 * pairs (code offset delta, with a negative sign for non-statement positions; position delta). */
static int position_at(const unsigned char *p, size_t len, int64_t off, uint64_t *pos)
{
	size_t at = 0;
	int64_t code = 0, sp = 0;
	int found = -1;
	while (at < len) {
		int64_t dc, dp;
		if (vlq(p, len, &at, &dc) || vlq(p, len, &at, &dp))
			return -1;
		code += dc >= 0 ? dc : -(dc + 1);
		sp += dp;
		if (code > off)
			break;
		*pos = (uint64_t)sp;
		found = 0;
	}
	return found;
}

/* SourcePosition: bit 0 external, 1-30 script offset, 31-46 inlining id + 1 (0: not inlined). */
static int inlining_id(uint64_t pos)
{
	return (int)((pos >> 31) & 0xffff) - 1;
}

size_t v8_inlined_read(const struct v8_layout *l, v8_read_fn rd, void *ctx, uint64_t code, uint64_t istart, uint64_t pc,
		       int leaf, uint64_t *sfis, size_t cap)
{
	struct reader r = { l, rd, ctx };
	uint64_t now, deopt, ddata, table, tdata, inl, idata, lits, ldata;
	int64_t tlen, dlen, ilen, llen;
	if (!l->code_istart || type_of(&r, code) != l->type_code || read_u64(&r, code - 1 + (uint64_t)l->code_istart, &now) ||
	    now != istart || pc < istart || pc - istart > (1u << 30))
		return 0;
	int64_t off = (int64_t)(pc - istart) - (leaf ? 0 : 1); /* a return address follows its call */
	if (read_u64(&r, code - 1 + (uint64_t)l->code_positions, &table) ||
	    array_of(&r, table, l->type_byte_array, l->type_trusted_bytes, &tdata, &tlen) || tlen == 0 || tlen > (int64_t)POSITIONS_MAX ||
	    read_u64(&r, code - 1 + (uint64_t)l->code_deopt, &deopt) ||
	    array_of(&r, deopt, l->type_fixed_array, l->type_trusted_fixed, &ddata, &dlen) ||
	    dlen <= l->deopt_inlining || dlen <= l->deopt_literals ||
	    read_u64(&r, ddata + 8 * (uint64_t)l->deopt_inlining, &inl) ||
	    read_u64(&r, ddata + 8 * (uint64_t)l->deopt_literals, &lits) ||
	    array_of(&r, inl, l->type_byte_array, l->type_trusted_bytes, &idata, &ilen) || ilen > INLINING_MAX * 16 ||
	    array_of(&r, lits, l->type_weak_array, 0, &ldata, &llen))
		return 0;
	static unsigned char buf[POSITIONS_MAX];
	uint64_t pos;
	if (rd(ctx, tdata, buf, (size_t)tlen) || position_at(buf, (size_t)tlen, off, &pos))
		return 0;
	size_t n = 0;
	/* each inlining position: where the inlined call stands in its caller, and which function */
	for (int id = inlining_id(pos); id >= 0 && n < cap; n++) {
		struct {
			uint64_t position;
			int32_t function;
			int32_t pad;
		} ip;
		uint64_t sfi;
		if ((int64_t)(id + 1) * 16 > ilen || rd(ctx, idata + 16 * (uint64_t)id, &ip, sizeof(ip)) || ip.function < 0 ||
		    ip.function >= llen || read_u64(&r, ldata + 8 * (uint64_t)ip.function, &sfi))
			return 0;
		sfi &= ~(uint64_t)2; /* a weak reference's tag */
		if (type_of(&r, sfi) != l->type_sfi)
			return 0;
		sfis[n] = sfi;
		id = inlining_id(ip.position); /* the caller's; the loop is bounded by cap */
	}
	return n;
}
