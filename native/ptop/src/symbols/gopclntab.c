#include "gopclntab.h"
#include <string.h>

enum { GO116 = 1, GO118 }; /* 1.20's table has 1.18's layout under a new magic */

struct hdr {
	int layout;
	int be;           /* big-endian target (s390x, ppc64) */
	unsigned ptrsize; /* 4 or 8 */
	uint64_t nfunc, text_start, funcname_off, pcln_off;
	unsigned field;   /* size of one functab field: 4 (1.18+) or ptrsize (1.16) */
};

static uint64_t rd(const uint8_t *p, unsigned n, int be)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[be ? n - 1 - i : i] << (8 * i);
	return v;
}

static int parse_header(const uint8_t *tab, size_t len, struct hdr *h)
{
	if (len < 16)
		return -1;
	memset(h, 0, sizeof(*h));
	uint32_t le = (uint32_t)rd(tab, 4, 0), be = (uint32_t)rd(tab, 4, 1);
	uint32_t magic = le;
	if (le == 0xfffffffa || le == 0xfffffff0 || le == 0xfffffff1) {
		h->be = 0;
	} else if (be == 0xfffffffa || be == 0xfffffff0 || be == 0xfffffff1) {
		h->be = 1;
		magic = be;
	} else {
		return -1;
	}
	h->layout = magic == 0xfffffffa ? GO116 : GO118;
	unsigned minlc = tab[6];
	h->ptrsize = tab[7];
	if (tab[4] || tab[5] || (minlc != 1 && minlc != 2 && minlc != 4) || (h->ptrsize != 4 && h->ptrsize != 8))
		return -1;
	unsigned fields = h->layout == GO116 ? 7 : 8;
	if (len < 8 + (size_t)fields * h->ptrsize)
		return -1;
	const uint8_t *f = tab + 8;
	unsigned ps = h->ptrsize;
	h->nfunc = rd(f, ps, h->be);
	if (h->layout == GO116) {
		h->funcname_off = rd(f + 2 * ps, ps, h->be);
		h->pcln_off = rd(f + 6 * ps, ps, h->be);
		h->field = ps;
	} else {
		h->text_start = rd(f + 2 * ps, ps, h->be);
		h->funcname_off = rd(f + 3 * ps, ps, h->be);
		h->pcln_off = rd(f + 7 * ps, ps, h->be);
		h->field = 4;
	}
	if (h->nfunc == 0 || h->nfunc > GOPCLNTAB_MAX_FUNCS || h->funcname_off >= len || h->pcln_off >= len)
		return -1;
	/* nfunc + 1 (entry, funcoff) pairs: the last entry is the end of the last function. */
	uint64_t ftab = (2 * h->nfunc + 1) * h->field; /* nfunc <= 4 Mi: no overflow */
	if (ftab > len - h->pcln_off)
		return -1;
	return 0;
}

/* Entry address of function i (i <= nfunc). */
static uint64_t entry_of(const uint8_t *tab, const struct hdr *h, uint64_t i)
{
	uint64_t v = rd(tab + h->pcln_off + 2 * i * h->field, h->field, h->be);
	return h->layout == GO116 ? v : h->text_start + v;
}

/* Name of function i, checked: its _func lies in the table, its entry agrees with the functab's,
 * its name is NUL-terminated within bounds. NULL otherwise. */
static const char *name_of(const uint8_t *tab, size_t len, const struct hdr *h, uint64_t i, uint64_t entry)
{
	uint64_t funcoff = rd(tab + h->pcln_off + (2 * i + 1) * h->field, h->field, h->be);
	uint64_t room = len - h->pcln_off;
	unsigned efield = h->layout == GO116 ? h->ptrsize : 4;
	if (funcoff >= room || room - funcoff < (uint64_t)efield + 4)
		return NULL;
	const uint8_t *fn = tab + h->pcln_off + funcoff;
	uint64_t fentry = rd(fn, efield, h->be);
	if ((h->layout == GO116 ? fentry : h->text_start + fentry) != entry)
		return NULL;
	int32_t nameoff = (int32_t)rd(fn + efield, 4, h->be);
	if (nameoff < 0 || (uint64_t)nameoff >= len - h->funcname_off)
		return NULL;
	const char *name = (const char *)tab + h->funcname_off + (uint64_t)nameoff;
	size_t max = len - h->funcname_off - (uint64_t)nameoff;
	if (max > GOPCLNTAB_MAX_NAME)
		max = GOPCLNTAB_MAX_NAME;
	size_t n = strnlen(name, max);
	return n == 0 || n == max ? NULL : name;
}

int gopclntab_check(const uint8_t *tab, size_t len)
{
	struct hdr h;
	if (parse_header(tab, len, &h))
		return -1;
	uint64_t e0 = entry_of(tab, &h, 0), e1 = entry_of(tab, &h, h.nfunc > 1 ? 1 : h.nfunc);
	/* A header's bytes can occur by chance: the first function must check out too. */
	return e1 >= e0 && name_of(tab, len, &h, 0, e0) ? 0 : -1;
}

long gopclntab_find(const uint8_t *buf, size_t len)
{
	/* Tables start pointer-aligned: candidates every 4 bytes, the two zero pad bytes first. */
	for (size_t off = 0; off + 16 <= len; off += 4) {
		const uint8_t *p = buf + off;
		if (p[4] || p[5] || !((p[0] == 0xff && p[1] == 0xff && p[2] == 0xff) || (p[1] == 0xff && p[2] == 0xff && p[3] == 0xff)))
			continue;
		if (gopclntab_check(p, len - off) == 0)
			return (long)off;
	}
	return -1;
}

long gopclntab_foreach(const uint8_t *tab, size_t len, gopclntab_fn fn, void *arg)
{
	if (gopclntab_check(tab, len))
		return -1;
	struct hdr h;
	parse_header(tab, len, &h);
	long n = 0;
	uint64_t entry = entry_of(tab, &h, 0);
	for (uint64_t i = 0; i < h.nfunc; i++) {
		uint64_t next = entry_of(tab, &h, i + 1);
		if (next < entry)
			break; /* the table is sorted: anything else is not a table we understand */
		const char *name = name_of(tab, len, &h, i, entry);
		if (name && next > entry) {
			fn(arg, entry, next - entry, name);
			n++;
		}
		entry = next;
	}
	return n;
}
