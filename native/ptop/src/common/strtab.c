#include "strtab.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) {
		fputs("ptop: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

void *xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		fputs("ptop: allocation overflow\n", stderr);
		exit(1);
	}
	void *q = realloc(p, (n && size) ? n * size : 1);
	if (!q) {
		fputs("ptop: out of memory\n", stderr);
		exit(1);
	}
	return q;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p) {
		fputs("ptop: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

int strmap_get(const struct strmap *m, const char *key)
{
	if (!m->cap)
		return -1;
	size_t i = hash_str(key) & (m->cap - 1);
	while (m->keys[i]) {
		if (strcmp(m->keys[i], key) == 0)
			return m->vals[i];
		i = (i + 1) & (m->cap - 1);
	}
	return -1;
}

static void strmap_grow(struct strmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 256;
	char **keys = xcalloc(ncap, sizeof(*keys));
	int *vals = xcalloc(ncap, sizeof(*vals));
	for (size_t j = 0; j < m->cap; j++) {
		if (!m->keys[j])
			continue;
		size_t i = hash_str(m->keys[j]) & (ncap - 1);
		while (keys[i])
			i = (i + 1) & (ncap - 1);
		keys[i] = m->keys[j];
		vals[i] = m->vals[j];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = ncap;
}

int strmap_put(struct strmap *m, const char *key, int val)
{
	if ((m->len + 1) * 2 > m->cap)
		strmap_grow(m);
	size_t i = hash_str(key) & (m->cap - 1);
	while (m->keys[i]) {
		if (strcmp(m->keys[i], key) == 0) {
			m->vals[i] = val;
			return 0;
		}
		i = (i + 1) & (m->cap - 1);
	}
	m->keys[i] = xstrndup(key, strlen(key));
	m->vals[i] = val;
	m->len++;
	return 0;
}

void strmap_free(struct strmap *m)
{
	for (size_t j = 0; j < m->cap; j++)
		free(m->keys[j]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
