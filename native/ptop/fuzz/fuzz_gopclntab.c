/* libFuzzer harness for Go's pclntab reader (gopclntab.c): the input as a table and as bytes to
 * search for one (a stripped binary's segment), every function's name read back. */
#include "gopclntab.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void touch(void *arg, uint64_t entry, uint64_t size, const char *name)
{
	size_t *sum = arg;
	*sum += strlen(name) + (size_t)(entry ^ size);
}

static volatile size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy: ASan sees any read past the table's end. */
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	size_t sum = 0;
	gopclntab_foreach(buf, size, touch, &sum);
	long at = gopclntab_find(buf, size);
	if (at >= 0)
		gopclntab_foreach(buf + at, size - (size_t)at, touch, &sum);
	free(buf);
	sink = sum;
	return 0;
}
