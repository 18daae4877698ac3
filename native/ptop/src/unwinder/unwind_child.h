/* The unwinder child's work, apart from its process and sockets so that it can be fuzzed
 * (fuzz/fuzz_unwind.c): parent messages and ring-buffer records in, aggregated stacks out. Every
 * input is bytes: the records carry a target's registers and stack, the mapped files are the
 * target's. */
#ifndef PTOP_UNWIND_CHILD_H
#define PTOP_UNWIND_CHILD_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct unwind_trailer;

/* poll: called when a sample names a process whose mappings may still be in flight. */
int uwc_init(bool debug, void (*poll)(void));
/* One parent message of n bytes and the descriptor it carried (-1: none), which becomes the
 * child's to keep or close. true for STOP. */
bool uwc_message(const void *buf, size_t n, int fd);
/* One ring-buffer record (the libbpf ring_buffer callback). */
int uwc_sample(void *ctx, void *data, size_t size);
/* Every aggregated stack, then the trailer, as records for the parent. */
void uwc_results(void (*emit)(const void *rec, size_t len, void *arg), void *arg);
/* Samples not aggregated because the aggregate reached its bound or memory ran out (per axis, the
 * totals through *_total when not NULL; uwc_results sends the per-axis counts in its trailer), and
 * mappings not kept for lack of memory (the samples in them end [truncated]). */
void uwc_dropped(struct unwind_trailer *t, uint64_t *full_total, uint64_t *no_memory_total, uint64_t *mappings_no_memory);
/* Samples unwound by the stack deltas' walk, by libdwfl because the walk could not, and (with
 * PTOP_UNWIND_CHECK set at uwc_init) walked samples whose frames differed from libdwfl's. */
void uwc_delta_counts(uint64_t *walked, uint64_t *fell_back, uint64_t *differed);
/* Releases every process and aggregate (the fuzzer runs many inputs in one process). */
void uwc_reset(void);
#endif
