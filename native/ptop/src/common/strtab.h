/* A string -> int map (open addressing, grows) and small allocation helpers. */
#ifndef PTOP_STRTAB_H
#define PTOP_STRTAB_H
#include <stddef.h>
#include <stdint.h>

struct strmap {
	char **keys;
	int *vals;
	size_t cap, len;
};

/* Returns the value for key, or -1. */
int strmap_get(const struct strmap *m, const char *key);
/* Inserts (copies key). Returns 0, or -1 on allocation failure. Overwrites an existing value. */
int strmap_put(struct strmap *m, const char *key, int val);
void strmap_free(struct strmap *m);

void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n, size_t size);
char *xstrndup(const char *s, size_t n);
#endif
