/* The demo's sample service: a checkout loop whose functions hold known shares of CPU.
 * Built twice by `runner demo`: -DSHOP_VERSION=1 and -DSHOP_VERSION=2. Version 2 carries a real
 * regression: apply_discounts does twice the work (a rule table scanned linearly instead of once).
 * Frame pointers and no inlining so each function is its own frame in the profile. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifndef SHOP_VERSION
#define SHOP_VERSION 1
#endif

static volatile sig_atomic_t stop;
static volatile unsigned long long sink;

#define WORK(n, x)                                                          \
	do {                                                                \
		for (unsigned long long i = 0; i < (n); i++)                \
			x = x * 6364136223846793005ULL + 1442695040888963407ULL; \
	} while (0)

__attribute__((noinline)) unsigned long long parse_request(unsigned long long x) { WORK(4000, x); return x; }
__attribute__((noinline)) unsigned long long price_cart(unsigned long long x) { WORK(6000, x); return x; }
__attribute__((noinline)) unsigned long long apply_discounts(unsigned long long x)
{
#if SHOP_VERSION >= 2
	WORK(6000, x);
#else
	WORK(3000, x);
#endif
	return x;
}
__attribute__((noinline)) unsigned long long render_receipt(unsigned long long x) { WORK(5000, x); return x; }

__attribute__((noinline)) void wait_for_next_request(void)
{
	struct timespec ts = { 0, 200000 };
	nanosleep(&ts, NULL);
}

__attribute__((noinline)) unsigned long long handle_checkout(unsigned long long x)
{
	x = parse_request(x);
	x = price_cart(x);
	x = apply_discounts(x);
	return render_receipt(x);
}

static void *serve(void *arg)
{
	unsigned long long x = (unsigned long long)(size_t)arg;
	for (unsigned long n = 0; !stop; n++) {
		x = handle_checkout(x);
		if (n % 64 == 0) wait_for_next_request();
	}
	sink = x;
	return NULL;
}

static void on_term(int sig) { (void)sig; stop = 1; }

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	if (threads < 1 || threads > 64) threads = 2;
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	printf("shop version %d serving with %d threads (pid %d)\n", SHOP_VERSION, threads, getpid());
	fflush(stdout);
	pthread_t t[64];
	for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, serve, (void *)(size_t)(i + 1));
	for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
	return 0;
}
