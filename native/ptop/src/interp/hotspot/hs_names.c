#include "hs_names.h"
#include <stdio.h>
#include <string.h>

#define MAX_SYMBOL 256        /* bytes of a name kept */
#define MAX_CLASS_METHODS 4096 /* methods of one class looked at for an overload */

static int rd64(const struct hs_mem *m, uint64_t a, uint64_t *v)
{
	return m->rd(m->rd_ctx, a, v, 8);
}

/* A Symbol's bytes (modified UTF-8; cut at MAX_SYMBOL). */
static int symbol(const struct hs_mem *m, uint64_t sym, char *buf, size_t *len)
{
	uint16_t n;
	if (!sym || m->rd(m->rd_ctx, sym + m->vm->symbol_length, &n, 2))
		return -1;
	size_t want = n < MAX_SYMBOL ? n : MAX_SYMBOL;
	if (want && m->rd(m->rd_ctx, sym + m->vm->symbol_body, buf, want))
		return -1;
	*len = want;
	return 0;
}

/* The constant pool's Symbol* at index i (names and signatures are symbol entries). */
static int cp_symbol(const struct hs_mem *m, uint64_t cp, uint16_t i, uint64_t *sym)
{
	int32_t n;
	if (m->rd(m->rd_ctx, cp + m->vm->cpool_length, &n, 4) || i == 0 || i >= n)
		return -1;
	return rd64(m, cp + m->vm->size_cpool + 8ull * i, sym) || !*sym ? -1 : 0;
}

struct method_syms {
	uint64_t cm, cp, holder, name, sig;
};

static int method_syms(const struct hs_mem *m, uint64_t method, struct method_syms *s)
{
	const struct hs_vm *vm = m->vm;
	uint16_t ni, si;
	if (!hs_method_ok(m, method) || rd64(m, method + vm->method_const, &s->cm) ||
	    rd64(m, s->cm + vm->cmethod_constants, &s->cp) || rd64(m, s->cp + vm->cpool_holder, &s->holder) ||
	    m->rd(m->rd_ctx, s->cm + vm->cmethod_name_index, &ni, 2) ||
	    m->rd(m->rd_ctx, s->cm + vm->cmethod_sig_index, &si, 2) || cp_symbol(m, s->cp, ni, &s->name) ||
	    cp_symbol(m, s->cp, si, &s->sig))
		return -1;
	return 0;
}

/* Whether the holder has another method of the same name and another signature (symbols are
 * interned: same name, same Symbol*), so that the name alone would merge two methods. The holder's
 * methods index its current constant pool, which is not the method's own when the class was
 * redefined since: then one of them is the same method's new version (same signature). */
static bool overloaded(const struct hs_mem *m, uint64_t method, const struct method_syms *s)
{
	const struct hs_vm *vm = m->vm;
	uint64_t arr, cp;
	int32_t n;
	if (rd64(m, s->holder + vm->iklass_constants, &cp) || rd64(m, s->holder + vm->iklass_methods, &arr) || !arr ||
	    m->rd(m->rd_ctx, arr + vm->array_ptr_len, &n, 4) || n <= 1 || n > MAX_CLASS_METHODS)
		return false;
	for (int32_t i = 0; i < n; i++) {
		uint64_t other, cm, name, sig;
		uint16_t ni, si;
		if (rd64(m, arr + vm->array_ptr_data + 8ull * (uint64_t)i, &other) || other == method ||
		    rd64(m, other + vm->method_const, &cm) || m->rd(m->rd_ctx, cm + vm->cmethod_name_index, &ni, 2) ||
		    m->rd(m->rd_ctx, cm + vm->cmethod_sig_index, &si, 2) || cp_symbol(m, cp, ni, &name) ||
		    cp_symbol(m, cp, si, &sig))
			continue;
		if (name == s->name && sig != s->sig)
			return true;
	}
	return false;
}

static uint32_t fnv1a(uint32_t h, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)p[i]) * 16777619u;
	return h;
}

int hs_method_stamp(const struct hs_mem *m, uint64_t method, uint32_t *stamp)
{
	struct method_syms s;
	uint64_t syms[3];
	char text[MAX_SYMBOL];
	size_t len;
	if (method_syms(m, method, &s) || rd64(m, s.holder + m->vm->klass_name, &syms[0]))
		return -1;
	syms[1] = s.name, syms[2] = s.sig;
	uint32_t h = 2166136261u;
	for (int i = 0; i < 3; i++) {
		if (symbol(m, syms[i], text, &len))
			return -1;
		h = fnv1a(fnv1a(h, text, len), "", 1); /* the NUL between: "ab"+"c" is not "a"+"bc" */
	}
	*stamp = h ? h : 1;
	return 0;
}

static int stamp_key(const struct hs_mem *m, uint64_t method, struct hs_stamped *k)
{
	const struct hs_vm *vm = m->vm;
	uint16_t ni;
	k->method = method;
	return rd64(m, method + vm->method_const, &k->cm) || rd64(m, k->cm + vm->cmethod_constants, &k->cp) ||
			       rd64(m, k->cp + vm->cpool_holder, &k->holder) || rd64(m, k->holder + vm->klass_name, &k->klass_name) ||
			       m->rd(m->rd_ctx, k->cm + vm->cmethod_name_index, &ni, 2) || cp_symbol(m, k->cp, ni, &k->name)
		       ? -1
		       : 0;
}

int hs_method_stamp_kept(const struct hs_mem *m, uint64_t method, uint32_t *stamp)
{
	if (!m->cache)
		return hs_method_stamp(m, method, stamp);
	struct hs_stamped k, *e = &m->cache->stamped[(method >> 3) % HS_CACHE_METHODS];
	if (stamp_key(m, method, &k))
		return -1;
	if (e->method == method && e->cm == k.cm && e->cp == k.cp && e->holder == k.holder && e->klass_name == k.klass_name &&
	    e->name == k.name) {
		*stamp = e->stamp;
		return 0;
	}
	if (hs_method_stamp(m, method, stamp))
		return -1;
	k.stamp = *stamp;
	*e = k;
	return 0;
}

/* Appends text[0..len) to buf at *o, '/' as '.', control bytes and quotes as '?'. */
static void append(char *buf, size_t cap, size_t *o, const char *text, size_t len, bool dots)
{
	for (size_t i = 0; i < len && *o + 1 < cap; i++) {
		char c = text[i];
		if (dots && c == '/')
			c = '.';
		if ((unsigned char)c < 0x20 || c == 0x7f)
			c = '?';
		buf[(*o)++] = c;
	}
	buf[*o] = 0;
}

static const char *primitive(char c)
{
	switch (c) {
	case 'Z': return "boolean";
	case 'B': return "byte";
	case 'C': return "char";
	case 'S': return "short";
	case 'I': return "int";
	case 'J': return "long";
	case 'F': return "float";
	case 'D': return "double";
	case 'V': return "void";
	default: return NULL;
	}
}

void hs_signature_text(const char *d, size_t len, char *buf, size_t cap)
{
	size_t o = 0, i = 0;
	if (cap == 0)
		return;
	buf[0] = 0;
	if (len == 0 || d[0] != '(')
		return;
	append(buf, cap, &o, "(", 1, false);
	i = 1;
	bool first = true;
	while (i < len && d[i] != ')') {
		size_t dims = 0;
		while (i < len && d[i] == '[')
			dims++, i++;
		if (i >= len)
			break;
		if (!first)
			append(buf, cap, &o, ", ", 2, false);
		first = false;
		if (d[i] == 'L') {
			const char *end = memchr(d + i, ';', len - i);
			if (!end)
				break;
			append(buf, cap, &o, d + i + 1, (size_t)(end - d - i - 1), true);
			i = (size_t)(end - d) + 1;
		} else {
			const char *p = primitive(d[i]);
			if (!p)
				break;
			append(buf, cap, &o, p, strlen(p), false);
			i++;
		}
		while (dims--)
			append(buf, cap, &o, "[]", 2, false);
	}
	append(buf, cap, &o, ")", 1, false);
}

int hs_method_name(const struct hs_mem *m, uint64_t method, char *buf, size_t cap)
{
	struct method_syms s;
	uint64_t klass_name;
	char text[MAX_SYMBOL];
	size_t len, o = 0;
	if (cap < HS_NAME_MAX || method_syms(m, method, &s) || rd64(m, s.holder + m->vm->klass_name, &klass_name) ||
	    symbol(m, klass_name, text, &len))
		return -1;
	buf[0] = 0;
	/* a hidden class (a lambda's) carries its address ("…$$Lambda$5+0x00007fc750000a08", or
	 * "/0x…"): without it, the name is the same in every run */
	for (size_t i = 0; i + 2 < len; i++)
		if ((text[i] == '+' || text[i] == '/') && text[i + 1] == '0' && text[i + 2] == 'x') {
			len = i;
			break;
		}
	append(buf, cap, &o, text, len, true);
	append(buf, cap, &o, ".", 1, false);
	if (symbol(m, s.name, text, &len))
		return -1;
	append(buf, cap, &o, text, len, false);
	if (overloaded(m, method, &s) && !symbol(m, s.sig, text, &len)) {
		char sig[MAX_SYMBOL];
		hs_signature_text(text, len, sig, sizeof(sig));
		append(buf, cap, &o, sig, strlen(sig), false);
	}
	return 0;
}

int hs_blob_name(const struct hs_mem *m, uint64_t blob, char *buf, size_t cap)
{
	uint64_t np;
	char text[64];
	if (cap < sizeof(text) || rd64(m, blob + m->vm->blob_name, &np) || m->rd(m->rd_ctx, np, text, sizeof(text) - 1))
		return -1;
	text[sizeof(text) - 1] = 0;
	size_t len = strlen(text);
	for (size_t i = 0; i < len; i++)
		if (text[i] < 0x20 || text[i] > 0x7e)
			return -1;
	snprintf(buf, cap, "%s", text);
	return len ? 0 : -1;
}
