/* libFuzzer harness for the perf-map parser (the parser of target-controlled JIT maps). */
#include "perfmap.h"
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfmap m;
	perfmap_parse((const char *)data, size, &m);
	for (size_t i = 0; i < m.n && i < 64; i++) {
		(void)perfmap_lookup(&m, m.e[i].start);
		(void)perfmap_lookup(&m, m.e[i].start + m.e[i].size - 1);
	}
	(void)perfmap_lookup(&m, 0);
	(void)perfmap_lookup(&m, UINT64_MAX);
	perfmap_free(&m);
	return 0;
}
