// A CPU-bound workload with known hot functions for bench/witness-real.ts. Each "request" calls
// a fixed mix of functions; `slow_path` does `SLOW` units of work, tunable from the command line
// so a version change (e.g. +10% cost in one function) can be injected. Runs for SECONDS seconds.
//   cc -O1 -fno-omit-frame-pointer -fno-inline -o workload witness-workload.c
//   ./workload SECONDS SLOW
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

// The loop is inside each function, so its cost is that function's own (self) time.
#define SPIN(n, seed)                                                                          \
  do {                                                                                         \
    uint64_t x = (seed);                                                                       \
    for (uint64_t i = 0; i < (n); i++) x = x * 6364136223846793005ULL + 1442695040888963407ULL; \
    sink += x;                                                                                 \
  } while (0)
#define WORK(name, units) \
  __attribute__((noinline)) static void name(uint64_t k) { SPIN((units), k); }
WORK(parse_headers, 3000)
WORK(route, 1200)
WORK(auth_check, 900)
WORK(db_query, 5000)
WORK(serialize_json, 2500)
WORK(compress, 2000)
WORK(log_line, 400)
WORK(metrics, 300)
WORK(cache_lookup, 700)
WORK(validate, 600)
static uint64_t slow_units = 500;
__attribute__((noinline)) static void slow_path(uint64_t k) { SPIN(slow_units, k); }

__attribute__((noinline)) static void handle_request(uint64_t k) {
  parse_headers(k);
  route(k);
  auth_check(k);
  cache_lookup(k);
  if (k % 4 != 0) db_query(k);
  validate(k);
  slow_path(k);
  serialize_json(k);
  if (k % 3 == 0) compress(k);
  log_line(k);
  metrics(k);
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 5;
  if (argc > 2) slow_units = strtoull(argv[2], 0, 10);
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  uint64_t k = 0;
  for (;;) {
    for (int i = 0; i < 64; i++) handle_request(k++);
    clock_gettime(CLOCK_MONOTONIC, &t);
    if ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 >= seconds) break;
  }
  printf("%llu requests\n", (unsigned long long)k);
  return 0;
}
