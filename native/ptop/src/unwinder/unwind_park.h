/* Samples the unwinder holds back (unwind_child.c): those of a process that has just exec'd,
 * taken before the child has the new image's mapping table, and those whose leaf lies in a mapping
 * the image's table does not have yet (mapped after it was read), until its next table. Copies of
 * ring-buffer records, kept in arrival order up to a fixed number of bytes; past it a sample is not
 * held (its stack ends [truncated], counted: unwind_trailer.unheld). */
#ifndef PTOP_UNWIND_PARK_H
#define PTOP_UNWIND_PARK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef PTOP_PARK_MAX_BYTES
#define PTOP_PARK_MAX_BYTES (32u << 20) /* ~1,900 full 17 KiB snapshots */
#endif

/* Keeps a copy of the record; false when it would pass the bound or memory ran out. */
bool park_hold(int pid, uint32_t gen, const void *rec, size_t size);
/* Calls fn on each held record of pid (every pid when pid < 0) of a generation up to max_gen,
 * oldest first, and lets them go. fn must not hold records. */
void park_release(int pid, uint32_t max_gen, void (*fn)(const void *rec, size_t size));
/* Lets every held record go without calling anything (the fuzzer's reset). */
void park_clear(void);
#endif
