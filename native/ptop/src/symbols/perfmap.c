#include "perfmap.h"
#include "strtab.h"
#include <stdlib.h>
#include <string.h>

static int parse_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	uint64_t v = 0;
	int digits = 0;
	while (s < end) {
		char c = *s;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			break;
		if (++digits > 16)
			return -1;
		v = v * 16 + (uint64_t)d;
		s++;
	}
	if (!digits)
		return -1;
	*p = s;
	*out = v;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct perfmap_entry *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

size_t perfmap_parse(const char *buf, size_t len, struct perfmap *out)
{
	memset(out, 0, sizeof(*out));
	if (len > PERFMAP_MAX_BYTES)
		len = PERFMAP_MAX_BYTES;
	size_t cap = 0, names_cap = 0;
	const char *p = buf, *end = buf + len;
	uint32_t seq = 0;
	while (p < end && out->n < PERFMAP_MAX_ENTRIES) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *next = nl ? nl + 1 : end;
		if (eol - p > PERFMAP_MAX_LINE) {
			p = next;
			continue;
		}
		uint64_t start, size;
		const char *q = p;
		if (parse_hex(&q, eol, &start) || q >= eol || *q != ' ') {
			p = next;
			continue;
		}
		q++;
		if (parse_hex(&q, eol, &size) || q >= eol || *q != ' ' || size == 0 || start + size < start) {
			p = next;
			continue;
		}
		q++;
		const char *ne = eol;
		while (ne > q && (ne[-1] == '\r' || ne[-1] == ' '))
			ne--;
		size_t nlen = (size_t)(ne - q);
		if (nlen == 0 || memchr(q, 0, nlen)) {
			p = next;
			continue;
		}
		if (out->n == cap) {
			cap = cap ? cap * 2 : 1024;
			out->e = xrealloc(out->e, cap, sizeof(*out->e));
		}
		if (out->names_len + nlen + 1 > names_cap) {
			names_cap = names_cap ? names_cap * 2 : 65536;
			while (names_cap < out->names_len + nlen + 1)
				names_cap *= 2;
			out->names = xrealloc(out->names, names_cap, 1);
		}
		memcpy(out->names + out->names_len, q, nlen);
		out->names[out->names_len + nlen] = 0;
		out->e[out->n++] = (struct perfmap_entry){ start, size, (uint32_t)out->names_len, seq++ };
		out->names_len += nlen + 1;
		p = next;
	}
	if (out->n)
		qsort(out->e, out->n, sizeof(*out->e), cmp_entry);
	return out->n;
}

const char *perfmap_lookup(const struct perfmap *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->e[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The newest entry that covers addr wins (code regions are reused after recompilation). */
	const struct perfmap_entry *best = NULL;
	for (size_t i = lo, k = 0; i > 0 && k < 64; i--, k++) {
		const struct perfmap_entry *e = &m->e[i - 1];
		if (addr - e->start < e->size && (!best || e->seq > best->seq))
			best = e;
	}
	return best ? m->names + best->name : NULL;
}

void perfmap_free(struct perfmap *m)
{
	free(m->e);
	free(m->names);
	memset(m, 0, sizeof(*m));
}
