/* bench/ptop-alloc-overhead.ts's workload: a loop of SPIN units of arithmetic and one malloc/free
 * (64-127 bytes, kept in a small ring so neither is elided). Every second it prints
 * "tick ITERATIONS CPU_NS" (its own CPU time), until killed.
 * usage: alloc-rate SPIN [nomalloc]   ("nomalloc": the same loop without the allocation) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void *volatile ring[16];

static long long ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

__attribute__((noinline)) static unsigned long spin(long n, unsigned long x)
{
	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline)) static void alloc_one(unsigned long i)
{
	unsigned k = i & 15;
	free(ring[k]);
	ring[k] = malloc(64 + (i & 63));
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	int with_malloc = !(argc > 2 && argv[2][0] == 'n');
	unsigned long x = 1, it = 0;
	long long next = ns(CLOCK_MONOTONIC) + 1000000000ll;
	for (;;) {
		for (int j = 0; j < 64; j++, it++) {
			x = spin(n, x);
			if (with_malloc)
				alloc_one(it);
		}
		long long t = ns(CLOCK_MONOTONIC);
		if (t >= next) {
			printf("tick %lu %lld %lu\n", it, ns(CLOCK_PROCESS_CPUTIME_ID), x & 1);
			fflush(stdout);
			next += 1000000000ll;
		}
	}
}
