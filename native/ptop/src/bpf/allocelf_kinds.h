/* The allocation entry points, numbered: the uprobe's attach cookie (alloc.bpf.h) and the index of
 * allocelf.h's offsets. Plain enum, shared by the BPF object and user space. */
#ifndef PTOP_ALLOCELF_KINDS_H
#define PTOP_ALLOCELF_KINDS_H
enum alloc_fn { AF_MALLOC = 0, AF_CALLOC, AF_REALLOC, AF_ALIGNED_ALLOC, AF_POSIX_MEMALIGN, AF_MALLOCGC, AF__COUNT };
#endif
