/* CLOCK_MONOTONIC in ns: the clock of bpf_ktime_get_ns(), so that user space and the BPF programs
 * can compare their times (the window's start, a mapping table's read time against a sample's). */
#ifndef PTOP_MONOCLOCK_H
#define PTOP_MONOCLOCK_H
#include <stdint.h>
#include <time.h>

static inline uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
#endif
