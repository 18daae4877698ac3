/* Kernel text symbols from /proc/kallsyms. When kptr_restrict hides the addresses (they read as
 * zero without CAP_SYSLOG), `hidden` is set and kernel frames stay unsymbolized. */
#ifndef PTOP_KALLSYMS_H
#define PTOP_KALLSYMS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	uint32_t name;
};

struct kallsyms {
	struct ksym *syms;
	size_t n;
	char *names;
	size_t names_len;
	bool hidden;
	bool loaded;
};

int kallsyms_load_fd(int fd, struct kallsyms *k);
const char *kallsyms_lookup(const struct kallsyms *k, uint64_t addr);
void kallsyms_free(struct kallsyms *k);
#endif
