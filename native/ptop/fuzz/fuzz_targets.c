/* libFuzzer harness for the target-list parser, which runs while ptop holds its capabilities.
 * Besides memory safety it checks the grammar's promises on every accepted list: at most
 * TARGETS_MAX_ITEMS entries, each workload a non-empty name of at most TARGETS_MAX_NAME bytes
 * without '/' or control bytes and not "*", each namespace a DNS-1123 label. */
#include "targets.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_name(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n == 0 || n > max)
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct target_list l;
	char err[200];
	if (targets_parse((const char *)data, size, &l, err, sizeof(err))) {
		if (l.n != 0 || l.items != NULL || strnlen(err, sizeof(err)) == sizeof(err))
			abort();
		return 0;
	}
	if (l.n == 0 || l.n > TARGETS_MAX_ITEMS)
		abort();
	for (size_t i = 0; i < l.n; i++) {
		const struct target *t = &l.items[i];
		check_name(t->workload, TARGETS_MAX_NAME);
		if (strchr(t->workload, '/') || strcmp(t->workload, "*") == 0)
			abort();
		if (t->ns && !targets_namespace_valid(t->ns))
			abort();
		if (!targets_allows(&l, t->workload, t->ns))
			abort();
		(void)targets_any_namespace(&l, t->workload);
	}
	targets_free(&l);
	return 0;
}
