#include "kallsyms.h"
#include "rootfs.h"
#include "strtab.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

int kallsyms_load_fd(int fd, struct kallsyms *k)
{
	memset(k, 0, sizeof(*k));
	size_t len;
	char *buf = read_fd_all(fd, 64u << 20, &len);
	if (!buf)
		return -1;
	size_t cap = 0, names_cap = len + 1;
	k->names = xcalloc(names_cap, 1);
	bool any_nonzero = false;
	for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp1 = strchr(line, ' ');
		if (!sp1 || !sp1[1] || sp1[2] != ' ')
			continue;
		char type = sp1[1];
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		uint64_t addr = strtoull(line, NULL, 16);
		if (addr)
			any_nonzero = true;
		char *name = sp1 + 3;
		name[strcspn(name, "\t ")] = 0; /* drop "[module]" */
		size_t nl = strlen(name);
		if (k->n == cap) {
			cap = cap ? cap * 2 : 65536;
			k->syms = xrealloc(k->syms, cap, sizeof(*k->syms));
		}
		memcpy(k->names + k->names_len, name, nl + 1);
		k->syms[k->n++] = (struct ksym){ addr, (uint32_t)k->names_len };
		k->names_len += nl + 1;
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
