/* For the harnesses that feed the unwinder child (fuzz/fuzz_unwind.c, unit/unit_unwind_oom.c): the
 * harness's own executable segment, so the mapping they hand the child names a real ELF file with
 * real CFI and the program counters they make up fall inside it. */
#pragma once
#include <stdint.h>

struct self_segment {
	uint64_t start, end, off;
};

/* The first executable PT_LOAD of /proc/self/exe, page-aligned; aborts if there is none. */
struct self_segment self_exec_segment(void);
