#include "hs_namecache.h"
#include "hs_names.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 16384            /* methods kept per JVM (a power of two), filled to three quarters */
#define POOL_MAX (4u << 20)    /* bytes of names per JVM */

struct entry {
	uint64_t method;
	uint32_t stamp;
	uint32_t off;
	uint16_t len;
	bool named; /* false: met, but its name could not be read with that stamp (not tried again) */
};

struct hs_namecache {
	struct entry slot[SLOTS];
	size_t used;
	char *pool;
	size_t pool_len, pool_cap;
};

static bool keep_text(struct hs_namecache *c, const char *text, size_t len, uint32_t *off)
{
	if (c->pool_len + len > c->pool_cap) {
		size_t cap = c->pool_cap ? c->pool_cap * 2 : 64 * 1024;
		while (cap < c->pool_len + len)
			cap *= 2;
		if (cap > POOL_MAX)
			return false;
		char *p = realloc(c->pool, cap);
		if (!p)
			return false;
		c->pool = p, c->pool_cap = cap;
	}
	memcpy(c->pool + c->pool_len, text, len);
	*off = (uint32_t)c->pool_len;
	c->pool_len += len;
	return true;
}

void hs_namecache_note(struct hs_namecache **cp, const struct hs_mem *m, uint64_t method, uint32_t stamp)
{
	if (!*cp && !(*cp = calloc(1, sizeof(**cp))))
		return;
	struct hs_namecache *c = *cp;
	size_t i = (size_t)((method >> 3) ^ stamp) & (SLOTS - 1);
	for (; c->slot[i].method; i = (i + 1) & (SLOTS - 1))
		if (c->slot[i].method == method && c->slot[i].stamp == stamp)
			return;
	if (c->used >= SLOTS / 4 * 3)
		return;
	char name[HS_NAME_MAX];
	uint32_t now;
	struct entry e = { method, stamp, 0, 0, false };
	if (hs_method_name(m, method, name, sizeof(name)) == 0 && hs_method_stamp(m, method, &now) == 0 && now == stamp) {
		size_t len = strnlen(name, sizeof(name) - 1);
		e.named = len > 0 && keep_text(c, name, len, &e.off);
		e.len = (uint16_t)len;
	}
	c->slot[i] = e;
	c->used++;
}

void hs_namecache_each(const struct hs_namecache *c,
		       void (*fn)(uint64_t method, uint32_t stamp, const char *name, size_t len, void *arg), void *arg)
{
	for (size_t i = 0; c && i < SLOTS; i++)
		if (c->slot[i].method && c->slot[i].named)
			fn(c->slot[i].method, c->slot[i].stamp, c->pool + c->slot[i].off, c->slot[i].len, arg);
}

void hs_namecache_free(struct hs_namecache *c)
{
	if (c)
		free(c->pool);
	free(c);
}
