#include "agg.h"
#include "output.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void agg_add(struct agg *a, int pid, const int *ids, size_t n, double value, double events, double total_ns)
{
	size_t klen = 16 + n * 12;
	char *key = xcalloc(klen, 1);
	size_t off = (size_t)snprintf(key, klen, "%d|", pid);
	for (size_t i = 0; i < n; i++)
		off += (size_t)snprintf(key + off, klen - off, "%d,", ids[i]);
	int idx = strmap_get(&a->index, key);
	if (idx < 0) {
		a->items = xrealloc(a->items, a->n + 1, sizeof(*a->items));
		struct agg_item *it = &a->items[a->n];
		it->pid = pid;
		it->ids = xcalloc(n ? n : 1, sizeof(int));
		memcpy(it->ids, ids, n * sizeof(int));
		it->n = n;
		it->value = 0;
		it->events = 0;
		it->total_ns = total_ns >= 0 ? 0 : -1;
		idx = (int)a->n++;
		strmap_put(&a->index, key, idx);
	}
	free(key);
	a->items[idx].value += value;
	a->items[idx].events += events;
	if (total_ns >= 0)
		a->items[idx].total_ns += total_ns;
}

static int by_value_desc(const void *x, const void *y)
{
	const struct agg_item *a = x, *b = y;
	if (a->value != b->value)
		return a->value < b->value ? 1 : -1;
	return a->pid != b->pid ? (a->pid < b->pid ? -1 : 1) : (a->n < b->n ? -1 : a->n > b->n);
}

struct left_out agg_emit(struct agg *a, const char *axis)
{
	struct left_out left = { 0, 0, 0 };
	qsort(a->items, a->n, sizeof(*a->items), by_value_desc);
	for (size_t i = 0; i < a->n; i++) {
		if (!out_stack(axis, a->items[i].ids, a->items[i].n, a->items[i].value, a->items[i].total_ns, a->items[i].pid)) {
			left.stacks++;
			left.value += a->items[i].value;
			left.events += a->items[i].events;
		}
		free(a->items[i].ids);
	}
	free(a->items);
	strmap_free(&a->index);
	memset(a, 0, sizeof(*a));
	return left;
}
