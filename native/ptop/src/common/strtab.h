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

/* In an array of n elements of `size` bytes sorted by the uint64_t at `key_off` in each: how many
 * have a key <= key (the index just past the last element at or below it). */
size_t sorted_count_le(const void *base, size_t n, size_t size, size_t key_off, uint64_t key);
#endif
