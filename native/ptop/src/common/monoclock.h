/* CLOCK_MONOTONIC in ns: the clock of bpf_ktime_get_ns(), so that user space and the BPF programs
 * can compare their times (the window's start, a mapping table's read time against a sample's). */
#ifndef PTOP_MONOCLOCK_H
#define PTOP_MONOCLOCK_H
#include <stdint.h>
#include <time.h>

/* Any clock in ns (a process's or thread's CPU clock too); 0 when it cannot be read. */
static inline uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	return clock_gettime(c, &ts) == 0 ? (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec : 0;
}

static inline uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}
#endif
