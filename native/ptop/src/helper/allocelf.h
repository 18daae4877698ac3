/* Where the allocation entry points of one ELF file are (alloc axis): file offsets of malloc,
 * calloc, realloc, aligned_alloc, posix_memalign (a libc, or a statically linked program) and
 * runtime.mallocgc (a Go program; from its pclntab when it has no .symtab), for uprobes. Parses
 * bytes the target controls: only ever called in ptop's unprivileged helper (elfhelper.c), with
 * every size bounded (elfsym.c, gopclntab.c). */
#ifndef PTOP_ALLOCELF_H
#define PTOP_ALLOCELF_H
#include <stddef.h>
#include <stdint.h>

#include "allocelf_kinds.h"

struct alloc_elf_info {
	uint32_t found;             /* bit (1 << alloc_fn) when its offset is known */
	uint32_t pad;
	uint64_t offset[AF__COUNT]; /* file offset of the function's first instruction */
};

extern const char *const alloc_fn_names[AF__COUNT];

void alloc_elf_analyze(const void *buf, size_t len, struct alloc_elf_info *out);
#endif
