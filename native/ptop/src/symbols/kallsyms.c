#include "kallsyms.h"
#include <errno.h>
#include <unistd.h>
#include "strtab.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

static void add_line(struct kallsyms *k, char *line, size_t *cap, size_t *names_cap, bool *any_nonzero)
{
	char *sp1 = strchr(line, ' ');
	if (!sp1 || !sp1[1] || sp1[2] != ' ')
		return;
	char type = sp1[1];
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return;
	uint64_t addr = strtoull(line, NULL, 16);
	if (addr)
		*any_nonzero = true;
	char *name = sp1 + 3;
	size_t nl = strcspn(name, "\t ");
	if (k->n == *cap) {
		*cap = *cap ? *cap * 2 : 65536;
		k->syms = xrealloc(k->syms, *cap, sizeof(*k->syms));
	}
	if (k->names_len + nl + 1 > *names_cap) {
		*names_cap = *names_cap ? *names_cap * 2 : (4u << 20);
		k->names = xrealloc(k->names, *names_cap, 1);
	}
	memcpy(k->names + k->names_len, name, nl);
	k->names[k->names_len + nl] = 0;
	k->syms[k->n++] = (struct ksym){ addr, (uint32_t)k->names_len };
	k->names_len += nl + 1;
}

/* Streams /proc/kallsyms through a fixed buffer, keeping text symbols only. When the first
 * symbol reads as address 0 the addresses are hidden from this reader: stop there. */
int kallsyms_load_fd(int fd, struct kallsyms *k)
{
	memset(k, 0, sizeof(*k));
	enum { BUF = 256 * 1024 };
	char *buf = xcalloc(BUF + 1, 1);
	size_t have = 0, cap = 0, names_cap = 0;
	bool any_nonzero = false;
	for (;;) {
		ssize_t r = read(fd, buf + have, BUF - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
		buf[have] = 0;
		char *p = buf, *nl;
		while ((nl = memchr(p, '\n', have - (size_t)(p - buf)))) {
			*nl = 0;
			/* Hidden addresses read as all zeros; only the whole file says so: before ~6.15 the
			 * first x86_64 line is the absolute symbol fixed_percpu_data at 0 even when visible. */
			add_line(k, p, &cap, &names_cap, &any_nonzero);
			p = nl + 1;
		}
		have -= (size_t)(p - buf);
		memmove(buf, p, have);
		if (have == BUF) /* a line longer than the buffer: not kallsyms */
			break;
	}
	free(buf);
	k->hidden = !any_nonzero;
	if (k->n)
		qsort(k->syms, k->n, sizeof(*k->syms), cmp_ksym);
	k->loaded = true;
	return 0;
}

const char *kallsyms_lookup(const struct kallsyms *k, uint64_t addr)
{
	if (k->hidden || !k->n)
		return NULL;
	size_t lo = 0, hi = k->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? k->names + k->syms[lo - 1].name : NULL;
}

void kallsyms_free(struct kallsyms *k)
{
	free(k->syms);
	free(k->names);
	memset(k, 0, sizeof(*k));
}
