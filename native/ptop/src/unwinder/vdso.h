/* The kernel's vDSO (clock_gettime & co.) as a file the unwinder can read CFI from. A target's
 * [vdso] mapping has no file behind it, so a sample taken inside it (clock_gettime-heavy code:
 * Go's runtime, tracers, timers) had only the frame-pointer fallback, which fails in arm64's leaf
 * functions: the stack ended there, [truncated]. Every process of one kernel and ABI maps the same
 * image; ptop passes its own, copied from its own memory (getauxval(AT_SYSINFO_EHDR)): nothing of
 * the target's is read. */
#ifndef PTOP_VDSO_H
#define PTOP_VDSO_H
#include <stdint.h>

/* A read-only, sealed memfd holding ptop's vDSO when its size is `len` (a target's [vdso]
 * mapping of another size is another ABI's image: -1). Made once; owned here. */
int vdso_fd(uint64_t len);
#endif
