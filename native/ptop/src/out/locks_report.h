/* The `locks` summary: lock waits grouped by lock (process, futex address), so that one hot lock
 * reads as one even when many stacks wait on it, and the notes on what the axis leaves out. */
#ifndef PTOP_LOCKS_REPORT_H
#define PTOP_LOCKS_REPORT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "strtab.h"

/* Whether futex_waitv is covered too: its tracepoints exist (Linux 5.16+) and attached (collector/probes/locks.c). */
bool locks_waitv_covered(void);

#define LOCKS_TABLE_MAX 50 /* locks listed in the summary, longest total wait first */

struct lock_stack {
	int *ids;
	size_t n;
	uint64_t wait_ns;
};

struct lock_entry {
	int pid;
	uint64_t address;
	uint64_t wait_ns, waits;
	struct lock_stack *stacks; /* distinct symbolized stacks that waited on it */
	size_t nstacks;
};

struct locks_table {
	struct lock_entry *locks;
	size_t n;
	struct strmap index; /* "pid:address" -> index in locks */
};

void locks_table_init(struct locks_table *t);
/* One aggregated wait record: `ids` is its symbolized stack (root first), as emitted. */
void locks_table_add(struct locks_table *t, int pid, uint64_t address, uint64_t wait_ns, uint64_t waits, const int *ids,
		     size_t n);
/* The summary members `,"locks":[…]` (malloc'd; the caller frees). */
char *locks_table_json(struct locks_table *t);
void locks_table_free(struct locks_table *t);
struct report;
struct probes;
struct stack_count;
/* The locks probe's hooks (probe_table.c). Notes: the futex waits left off the axis, futex_waitv
 * not covered. The per-lock table: each resolved wait stack, then the summary's `,"locks":[…]`. */
size_t locks_notes(const struct report *r, const struct probes *p, const char **notes);
void locks_on_stack(const struct stack_count *sc, const int *ids, size_t n);
char *locks_summary_json(void);
#endif
