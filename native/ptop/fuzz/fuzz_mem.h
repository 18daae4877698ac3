/* The fuzz harnesses' target memory (fuzz_pycode.c, fuzz_v8name.c, fuzz_hotspot.c): the input's
 * bytes mapped at FUZZ_MEM_BASE; a read outside them fails, as a read of unmapped target memory
 * does. Header-only: each harness is one translation unit. */
#ifndef PTOP_FUZZ_MEM_H
#define PTOP_FUZZ_MEM_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FUZZ_MEM_BASE 0x10000ull

struct fuzz_mem {
	const uint8_t *p;
	size_t n;
};

static inline int fuzz_mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct fuzz_mem *m = ctx;
	if (addr < FUZZ_MEM_BASE || addr - FUZZ_MEM_BASE > m->n || len > m->n - (addr - FUZZ_MEM_BASE))
		return -1;
	memcpy(buf, m->p + (addr - FUZZ_MEM_BASE), len);
	return 0;
}

#endif
