/* Where the start-up time goes: with PTOP_DEBUG set, each step prints the wall and CPU seconds
 * since ptop started (the unwinder child, forked, prints on the same clock). bench/ptop-unwind.ts
 * reads these lines. */
#ifndef PTOP_PHASE_H
#define PTOP_PHASE_H
void phase_start(void);
void phase(const char *what);
#endif
