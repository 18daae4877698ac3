/* The alloc axis in user space: the sampling intervals, and per target process the uprobes on its
 * own allocation entry points (bpf/alloc.bpf.c holds the program, allocelf.c finds the offsets). */
#ifndef PTOP_ALLOC_H
#define PTOP_ALLOC_H
#include "probes.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Mean bytes between two stacks, like Go's MemProfileRate (512 KiB) and tcmalloc's default. */
#define PTOP_ALLOC_PERIOD (512u * 1024u)

/* After the BPF object is loaded: fills the exponential interval table. 0 on success. */
int alloc_setup(struct probes *p, uint64_t period, char *err, size_t len);
/* Finds pid's libc (and its executable: Go's runtime.mallocgc, a static libc) through its maps and
 * attaches one pid-filtered uprobe per entry point. Returns the uprobes attached for pid. */
int alloc_attach(struct probes *p, int pid);
/* Tries again the processes that got no uprobe yet (a few times each); returns how many still wait. */
size_t alloc_retry(struct probes *p);
/* Once the first targets are found: waits up to 1 s for one to get a uprobe (a target that has
 * just started may not have mapped its libc yet); false, its reason written, when none has. */
bool alloc_settle(struct probes *p, int probe);
/* Target processes seen while the alloc probe was attached, and what became of them: covered
 * (at least one uprobe), gone (exited before one could be attached), no_entry_point (no libc or
 * allocation symbol found within the retries), not_queued (the retry list was at its bound),
 * still_pending (being retried when asked). */
struct alloc_coverage {
	size_t processes, covered, gone, no_entry_point, not_queued, still_pending;
};
struct alloc_coverage alloc_coverage(void);
/* Uprobes attached so far, over all processes; why none could be when that is 0. */
size_t alloc_uprobes(void);
const char *alloc_why_none(void);
/* Entry points attached, e.g. "malloc, calloc, realloc, aligned_alloc, posix_memalign, runtime.mallocgc". */
const char *alloc_functions(void);
void alloc_detach(void);
#endif
