/* The Java names the unwinder child reads during the window (README "Java frames"): each method a
 * walk meets is named once, as its memory is then, keyed by its Method* and stamp, and the names go
 * to the parent with the aggregate. A class unloaded later in the window keeps its frames' names;
 * a Method* reused by another method has another stamp, so another entry. Runs unprivileged. */
#ifndef PTOP_HS_NAMECACHE_H
#define PTOP_HS_NAMECACHE_H
#include "hs_walk.h"
#include <stddef.h>

struct hs_namecache;

/* Names (method, stamp) through m unless that pair was met already: kept only when the method's
 * stamp reads the same after its name was read. *c is allocated at the first use; nothing is kept
 * when it is full or out of memory (the parent then reads the name itself at the window's end). */
void hs_namecache_note(struct hs_namecache **c, const struct hs_mem *m, uint64_t method, uint32_t stamp);
/* Every name kept. */
void hs_namecache_each(const struct hs_namecache *c,
		       void (*fn)(uint64_t method, uint32_t stamp, const char *name, size_t len, void *arg), void *arg);
void hs_namecache_free(struct hs_namecache *c);
#endif
