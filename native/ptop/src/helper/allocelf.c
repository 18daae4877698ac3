#include "allocelf.h"
#include "elfsym.h"
#include <string.h>

const char *const alloc_fn_names[AF__COUNT] = { "malloc", "calloc", "realloc", "aligned_alloc", "posix_memalign",
						"runtime.mallocgc" };

/* A uprobe is placed at a file offset: the PT_LOAD holding the symbol's address says which. */
static int vaddr_to_offset(const struct elfsym *e, uint64_t vaddr, uint64_t *off)
{
	for (int i = 0; i < e->nloads; i++) {
		const struct elf_load *l = &e->loads[i];
		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz) {
			*off = vaddr - l->vaddr + l->offset;
			return 0;
		}
	}
	return -1;
}

void alloc_elf_analyze(const void *buf, size_t len, struct alloc_elf_info *out)
{
	memset(out, 0, sizeof(*out));
	struct elfsym e;
	memset(&e, 0, sizeof(e));
	if (elfsym_from_mem(buf, len, &e) == 0) {
		for (size_t i = 0; i < e.n; i++) {
			const char *name = e.names + e.syms[i].name;
			for (int f = 0; f < AF__COUNT; f++) {
				uint64_t off;
				if (!(out->found & (1u << f)) && !strcmp(name, alloc_fn_names[f]) &&
				    vaddr_to_offset(&e, e.syms[i].addr, &off) == 0) {
					out->offset[f] = off;
					out->found |= 1u << f;
				}
			}
		}
	}
	elfsym_free(&e);
}
