#include "locks_report.h"
#include "locks_stats.h"
#include "report.h"
#include "output.h"
#include "strtab.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void locks_table_init(struct locks_table *t)
{
	memset(t, 0, sizeof(*t));
}

static struct lock_entry *lock_get(struct locks_table *t, int pid, uint64_t address)
{
	char key[48];
	snprintf(key, sizeof(key), "%d:%" PRIx64, pid, address);
	int at = strmap_get(&t->index, key);
	if (at >= 0)
		return &t->locks[at];
	strmap_put(&t->index, key, (int)t->n);
	t->locks = xrealloc(t->locks, t->n + 1, sizeof(*t->locks));
	struct lock_entry *e = &t->locks[t->n++];
	memset(e, 0, sizeof(*e));
	e->pid = pid;
	e->address = address;
	return e;
}

void locks_table_add(struct locks_table *t, int pid, uint64_t address, uint64_t wait_ns, uint64_t waits, const int *ids,
		     size_t n)
{
	struct lock_entry *e = lock_get(t, pid, address);
	e->wait_ns += wait_ns;
	e->waits += waits;
	/* Different addresses in one function fold into one symbolized stack, as on the axis. */
	for (size_t i = 0; i < e->nstacks; i++)
		if (e->stacks[i].n == n && memcmp(e->stacks[i].ids, ids, n * sizeof(int)) == 0) {
			e->stacks[i].wait_ns += wait_ns;
			return;
		}
	e->stacks = xrealloc(e->stacks, e->nstacks + 1, sizeof(*e->stacks));
	struct lock_stack *s = &e->stacks[e->nstacks++];
	s->ids = xcalloc(n ? n : 1, sizeof(int));
	memcpy(s->ids, ids, n * sizeof(int));
	s->n = n;
	s->wait_ns = wait_ns;
}

static int by_wait_desc(const void *a, const void *b)
{
	uint64_t x = ((const struct lock_entry *)a)->wait_ns, y = ((const struct lock_entry *)b)->wait_ns;
	return x < y ? 1 : x > y ? -1 : 0;
}

char *locks_table_json(struct locks_table *t)
{
	qsort(t->locks, t->n, sizeof(*t->locks), by_wait_desc);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fputs(",\"locks\":[", f);
	for (size_t i = 0; i < t->n && i < LOCKS_TABLE_MAX; i++) {
		const struct lock_entry *e = &t->locks[i];
		const struct lock_stack *top = NULL;
		for (size_t k = 0; k < e->nstacks; k++)
			if (!top || e->stacks[k].wait_ns > top->wait_ns)
				top = &e->stacks[k];
		/* Its frames may have been left out of a stream at its budget (output.h): then no top stack. */
		for (size_t k = 0; top && k < top->n; k++)
			if (!out_frame_written(top->ids[k]))
				top = NULL;
		fprintf(f, "%s{\"pid\":%d,\"address\":\"0x%" PRIx64 "\",\"wait_ns\":%" PRIu64 ",\"waits\":%" PRIu64
			   ",\"stacks\":%zu",
			i ? "," : "", e->pid, e->address, e->wait_ns, e->waits, e->nstacks);
		if (top) {
			fputs(",\"top_stack\":[", f);
			for (size_t k = 0; k < top->n; k++)
				fprintf(f, "%s%d", k ? "," : "", top->ids[k]);
			fprintf(f, "],\"top_stack_ns\":%" PRIu64, top->wait_ns);
		}
		fputc('}', f);
	}
	fputc(']', f);
	fclose(f);
	return buf;
}

void locks_table_free(struct locks_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		for (size_t k = 0; k < t->locks[i].nstacks; k++)
			free(t->locks[i].stacks[k].ids);
		free(t->locks[i].stacks);
	}
	free(t->locks);
	strmap_free(&t->index);
	memset(t, 0, sizeof(*t));
}

size_t locks_notes(const struct report *r, const struct probes *p, const char **notes)
{
	static char other[320];
	size_t n = 0;
	uint64_t other_waits = r->stat[STAT_LOCK_OTHER_WAITS], other_ns = r->stat[STAT_LOCK_OTHER_NS];
	if (other_waits) {
		snprintf(other, sizeof(other),
			 "locks: %" PRIu64 " futex waits (%.3f s) were not lock contention by their futex operation and value "
			 "(condition variables, semaphores, thread joins, idle workers) and are not on this axis",
			 other_waits, (double)other_ns / 1e9);
		notes[n++] = other;
	}
	if (!locks_waitv_covered())
		notes[n++] = "locks: futex_waitv is not covered (this kernel has no syscalls:sys_enter_futex_waitv tracepoint)";
	return n;
}

/* The per-lock table of this capture's waits (its on_stack and summary_json hooks). */
static struct locks_table table;
static bool table_ready;

void locks_on_stack(const struct stack_count *sc, const int *ids, size_t n)
{
	if (!table_ready) {
		locks_table_init(&table);
		table_ready = true;
	}
	locks_table_add(&table, (int)sc->key.tgid, sc->lock, sc->value, sc->events, ids, n);
}

char *locks_summary_json(void)
{
	if (!table_ready) {
		locks_table_init(&table);
		table_ready = true;
	}
	char *json = locks_table_json(&table);
	locks_table_free(&table);
	table_ready = false;
	return json;
}
