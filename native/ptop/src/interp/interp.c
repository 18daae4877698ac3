#include "interp.h"
#include "hotspot.h"
#include "pyframes.h"
#include <linux/types.h>
#include "python.h"
#include <string.h>

/* CPython's evaluation loop, the C function each run of Python frames executes in. */
static bool is_eval_function(const char *f)
{
	return f && !strcmp(f, "_PyEval_EvalFrameDefault");
}

size_t interp_merge(int pid, const void *section, size_t len, const int *native_ids, const char *const *native_functions,
		    size_t n, int *out, size_t cap)
{
	struct interp_section_hdr h;
	if (section && len >= sizeof(h) && (memcpy(&h, section, sizeof(h)), h.kind == INTERP_HOTSPOT))
		return hs_merge(pid, section, len, native_ids, n, out, cap);
	int py[PY_MAX_FRAMES];
	uint32_t flags[PY_MAX_FRAMES];
	size_t npy = py_section_frames(pid, section, len, py, flags, PY_MAX_FRAMES);
	bool is_eval[n ? n : 1];
	for (size_t i = 0; i < n; i++)
		is_eval[i] = is_eval_function(native_functions[i]);
	return interp_merge_ids(native_ids, is_eval, n, py, flags, npy, out, cap);
}

size_t interp_merge_ids(const int *native, const bool *is_eval, size_t n, const int *py, const uint32_t *flags, size_t npy,
		int *out, size_t cap)
{
	size_t o = 0;
#define PUT(x) do { if (o < cap) out[o++] = (x); } while (0)
	/* segments of Python frames, root first: each begins at a frame flagged PY_FRAME_ENTRY */
	size_t seg_start[PY_MAX_FRAMES + 1], nseg = 0;
	for (size_t i = 0; i < npy && nseg < PY_MAX_FRAMES; i++)
		if (i == 0 || (flags[i] & PY_FRAME_ENTRY))
			seg_start[nseg++] = i;
	seg_start[nseg] = npy;
	size_t neval = 0;
	for (size_t i = 0; i < n; i++)
		neval += is_eval[i];
	if (neval == 0) {
		/* The native unwind did not reach the evaluation loop (no frame pointers in the
		 * interpreter): Python frames first, then what the native unwind found. */
		for (size_t i = 0; i < npy; i++)
			PUT(py[i]);
		for (size_t i = 0; i < n; i++)
			PUT(native[i]);
		return o;
	}
	/* Segments pair with evaluation-loop frames from the leaf up; surplus outer segments all go
	 * to the outermost one, surplus outer evaluation frames stay native. */
	size_t skip_eval = neval > nseg ? neval - nseg : 0;
	size_t eval_seen = 0, next_seg = 0;
	for (size_t i = 0; i < n; i++) {
		if (!is_eval[i]) {
			PUT(native[i]);
			continue;
		}
		if (eval_seen++ < skip_eval) {
			PUT(native[i]);
			continue;
		}
		size_t upto = eval_seen - skip_eval == 1 ? nseg - (neval - skip_eval) + 1 : next_seg + 1;
		for (; next_seg < upto && next_seg < nseg; next_seg++)
			for (size_t j = seg_start[next_seg]; j < seg_start[next_seg + 1]; j++)
				PUT(py[j]);
	}
#undef PUT
	return o;
}

