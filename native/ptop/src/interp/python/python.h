/* Types shared by the Python frame walker (python.bpf.c) and user space (pyframes.c, interp.c): the
 * per-process configuration user space pushes into `py_procs`, and the Python stack the walker
 * records. Plain fixed-size structs: the same bytes are read by both sides. */
#ifndef PTOP_PYTHON_H
#define PTOP_PYTHON_H
#include "interp_section.h"

#define PY_MAX_FRAMES 64    /* scratch array size (a power of two for the verifier's masks) */
#define PY_MAX_THREADS 256  /* thread states searched per sample for the current thread */
#define PY_MAX_PROCS 1024
/* Frames recorded per sample: the section (8-byte header + 16 per frame) fits PTOP_INTERP_MAX. */
#define PY_SECTION_FRAMES 63

#define PY_FRAME_ENTRY 1u  /* first Python frame of one C-level _PyEval_EvalFrameDefault call */

/* Offsets (from pyoffsets.c) the walker needs; -1 = not in this version. */
struct py_walk_offsets {
	__s32 runtime_interpreters_head, interp_tstate_head;
	__s32 tstate_next, tstate_thread_id, tstate_native_thread_id, tstate_frame;
	__s32 cframe_current_frame;
	__s32 frame_back, frame_code, frame_owner, frame_is_entry, owner_cstack;
	__s32 code_firstlineno, pad;
};
/* Those fields, each the same-named one of the version's row (pyoffsets.h), for pyframes.c's copy. */
#define PY_WALK_OFFSET_FIELDS(X)                                                                  \
	X(runtime_interpreters_head) X(interp_tstate_head) X(tstate_next) X(tstate_thread_id)    \
	X(tstate_native_thread_id) X(tstate_frame) X(cframe_current_frame) X(frame_back)         \
	X(frame_code) X(frame_owner) X(frame_is_entry) X(owner_cstack) X(code_firstlineno)

/* Value of `py_procs`, keyed by tgid: where this process keeps _PyRuntime, and its layout. */
struct py_proc {
	__u64 runtime;
	struct py_walk_offsets off;
};


struct py_frame {
	__u64 code;        /* PyCodeObject address in the target */
	__s32 firstlineno; /* co_firstlineno read at sample time: user space checks it still holds */
	__u32 flags;       /* PY_FRAME_ENTRY */
};

/* A whole section: innermost frame first (frames[0] is the one executing). A chain deeper than
 * PY_SECTION_FRAMES keeps its innermost frames. */
struct py_stack {
	struct interp_section_hdr hdr;
	struct py_frame frames[PY_MAX_FRAMES];
};

#endif
