#ifndef PTOP_ARGS_H
#define PTOP_ARGS_H
#include <stdbool.h>

struct options {
	const char *targets_path;
	const char *workload;
	const char *ns; /* NULL: not narrowed */
	double duration_sec;
	double warmup_sec;
	int frequency_hz;
	int probes; /* 1 << P_* (probe_table.h) per probe asked for */
	bool check_kernel; /* --check-kernel: only the start-up check of the kernel's features, then exit */
};

/* 0 on success; -1 after printing a one-line usage error to stderr. */
int parse_args(int argc, char **argv, struct options *o);
#endif
