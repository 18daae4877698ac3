/* libFuzzer harness for the ELF symbol reader (the parser of target-controlled binaries). */
#include "elfsym.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* elf_memory wants a writable buffer it does not own. */
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	struct elfsym e;
	if (elfsym_from_mem(buf, size, &e) == 0) {
		elfsym_finish(&e);
		uint64_t v;
		for (uint64_t off = 0; off < 0x4000; off += 0x333)
			if (elfsym_offset_to_vaddr(&e, off, &v) == 0)
				(void)elfsym_lookup(&e, v);
		for (size_t i = 0; i < e.n && i < 64; i++)
			(void)elfsym_lookup(&e, e.syms[i].addr + 1);
	}
	elfsym_free(&e);
	free(buf);
	return 0;
}
