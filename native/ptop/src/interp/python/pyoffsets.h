/* Where CPython keeps the thread states, frames and code objects, per minor version.
 * The table (pyoffsets.c) is generated from each version's own headers by
 * tools/pyoffsets_gen.c; test/live/ptop-python-offsets.test.ts regenerates it against every
 * CPython on the machine and fails on any difference. -1 = the field does not exist in that
 * version. */
#ifndef PTOP_PYOFFSETS_H
#define PTOP_PYOFFSETS_H
#include <stdint.h>

struct py_version_offsets {
	uint32_t version; /* PY_VERSION_HEX with micro/level/serial cleared: 0x030c0000 = 3.12 */
	int32_t runtime_interpreters_head, interp_tstate_head;
	int32_t tstate_next, tstate_thread_id, tstate_native_thread_id, tstate_frame;
	int32_t cframe_current_frame;
	int32_t frame_back, frame_code, frame_instr, frame_owner, frame_is_entry, owner_cstack;
	int32_t code_argcount, code_firstlineno, code_filename, code_name, code_qualname;
	int32_t code_linetable, code_adaptive;
	int32_t object_type, unicode_length, unicode_state, unicode_ascii_size, unicode_compact_size;
	int32_t bytes_size, bytes_data;
};

/* NULL when ptop has no offsets for that major.minor (the caller reports the version). */
const struct py_version_offsets *py_offsets_for(uint32_t version_hex);
/* "3.8, 3.9, …": for messages. */
const char *py_supported_versions(void);
#endif
