#include "phase.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double started;
static int on;

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void phase_start(void)
{
	started = mono();
	on = getenv("PTOP_DEBUG") != NULL;
}

void phase(const char *what)
{
	struct timespec cpu;
	if (on && clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu) == 0)
		fprintf(stderr, "ptop: timing: %.3f s (cpu %.3f s) %s\n", mono() - started,
			(double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9, what);
}
