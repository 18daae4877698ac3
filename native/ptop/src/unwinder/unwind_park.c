/* The unwinder's held-back samples (unwind_park.h): a list in arrival order. Few processes exec
 * during a window and each holds samples for a quarter of a second at most, so a linear scan per
 * release is enough. */
#include "unwind_park.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct parked {
	int pid;
	uint32_t gen;
	size_t size;
	void *rec;
};

static struct parked *held;
static size_t nheld, capheld, bytes;

bool park_hold(int pid, uint32_t gen, const void *rec, size_t size)
{
	if (size > PTOP_PARK_MAX_BYTES - bytes)
		return false;
	if (nheld == capheld) {
		size_t cap = capheld ? capheld * 2 : 64;
		struct parked *p = realloc(held, cap * sizeof(*held));
		if (!p)
			return false;
		held = p;
		capheld = cap;
	}
	void *copy = malloc(size ? size : 1);
	if (!copy)
		return false;
	memcpy(copy, rec, size);
	held[nheld++] = (struct parked){ pid, gen, size, copy };
	bytes += size;
	return true;
}

void park_release(int pid, uint32_t max_gen, void (*fn)(const void *rec, size_t size))
{
	size_t keep = 0;
	for (size_t i = 0; i < nheld; i++) {
		if ((pid < 0 || held[i].pid == pid) && held[i].gen <= max_gen) {
			fn(held[i].rec, held[i].size);
			free(held[i].rec);
			bytes -= held[i].size;
		} else {
			held[keep++] = held[i];
		}
	}
	nheld = keep;
}

void park_clear(void)
{
	for (size_t i = 0; i < nheld; i++)
		free(held[i].rec);
	free(held);
	held = NULL;
	nheld = capheld = bytes = 0;
}
