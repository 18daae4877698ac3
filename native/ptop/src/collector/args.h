#ifndef PTOP_ARGS_H
#define PTOP_ARGS_H
#include <stdbool.h>

enum { PROBE_CPU = 1, PROBE_OFFCPU = 2, PROBE_SYSCALLS = 4, PROBE_LOCKS = 8, PROBE_ALLOC = 16 }; /* 1 << P_* (probes.h) */

struct options {
	const char *targets_path;
	const char *workload;
	const char *ns; /* NULL: not narrowed */
	double duration_sec;
	double warmup_sec;
	int frequency_hz;
	int probes; /* PROBE_* mask */
	bool check_kernel; /* --check-kernel: only the start-up check of the kernel's features, then exit */
};

/* 0 on success; -1 after printing a one-line usage error to stderr. */
int parse_args(int argc, char **argv, struct options *o);
#endif
