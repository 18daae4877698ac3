/* Merging interpreter frames into a symbolized native stack (README "Sample record and unwinding
 * design"): the interpreter's evaluation-loop frames are replaced by the frames of the section
 * (python.bpf.h's interp_collect). Runs after the capability drop. */
#ifndef PTOP_INTERP_H
#define PTOP_INTERP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* native_ids/native_functions: the native stack root first (function NULL when unresolved).
 * Writes at most cap ids to out, returns the count; without a usable section, out = native. */
size_t interp_merge(int pid, const void *section, size_t len, const int *native_ids, const char *const *native_functions,
		    size_t n, int *out, size_t cap);
/* The merge itself, on ids: segments of Python frames (each begins at a PY_FRAME_ENTRY frame)
 * replace evaluation-loop frames from the leaf up. */
size_t interp_merge_ids(const int *native, const bool *is_eval, size_t n, const int *py, const uint32_t *flags,
			size_t npy, int *out, size_t cap);
#endif
