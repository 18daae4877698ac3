/* Prints one row of ptop's CPython offsets table (src/interp/python/pyoffsets.c) from the interpreter's own
 * headers: compile it against a CPython's include directory with Py_BUILD_CORE (the structures
 * are internal ones) and run it. Every number in the table comes from here, never by hand:
 *   cc -DPy_BUILD_CORE -I$P/include/python3.X -I$P/include/python3.X/internal \
 *      tools/pyoffsets_gen.c -o /tmp/gen && /tmp/gen
 * test/live/ptop-python-offsets.test.ts recompiles it against every CPython on the machine and
 * requires the committed table to match. */
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#if PY_VERSION_HEX >= 0x030B0000
#include "pycore_frame.h"
#include "pycore_code.h"
#endif
#if PY_VERSION_HEX >= 0x03090000
#include "pycore_runtime.h"
#include "pycore_interp.h"
#else
#include "pycore_pystate.h" /* 3.8 keeps the runtime and interpreter structs here */
#endif
#if PY_VERSION_HEX < 0x030B0000
#include <frameobject.h>
#endif

#define P(name, expr) printf("\t\t." #name " = %ld,\n", (long)(expr))

int main(void)
{
	printf("\t{ /* %s: %s */\n", PY_VERSION, "pyoffsets_gen.c against its headers");
	printf("\t\t.version = 0x%x,\n", (unsigned)(PY_VERSION_HEX & 0xffff0000u));
	/* pycore_runtime.h struct pyruntimestate: interpreters.head */
	P(runtime_interpreters_head, offsetof(_PyRuntimeState, interpreters.head));
	/* pycore_interp.h struct _is: tstate_head (<= 3.10), threads.head (3.11+) */
#if PY_VERSION_HEX >= 0x030B0000
	P(interp_tstate_head, offsetof(PyInterpreterState, threads.head));
#else
	P(interp_tstate_head, offsetof(PyInterpreterState, tstate_head));
#endif
	/* cpython/pystate.h struct _ts */
	P(tstate_next, offsetof(PyThreadState, next));
	P(tstate_thread_id, offsetof(PyThreadState, thread_id));
#if PY_VERSION_HEX >= 0x030B0000
	P(tstate_native_thread_id, offsetof(PyThreadState, native_thread_id));
#else
	P(tstate_native_thread_id, -1);
#endif
#if PY_VERSION_HEX >= 0x030D0000
	P(tstate_frame, offsetof(PyThreadState, current_frame)); /* _PyInterpreterFrame * */
	P(cframe_current_frame, -1);
#elif PY_VERSION_HEX >= 0x030B0000
	P(tstate_frame, offsetof(PyThreadState, cframe)); /* _PyCFrame * */
	P(cframe_current_frame, offsetof(_PyCFrame, current_frame));
#else
	P(tstate_frame, offsetof(PyThreadState, frame)); /* PyFrameObject * */
	P(cframe_current_frame, -1);
#endif
	/* the frame: frameobject.h PyFrameObject (<= 3.10), pycore_frame.h _PyInterpreterFrame */
#if PY_VERSION_HEX >= 0x030D0000
	P(frame_back, offsetof(_PyInterpreterFrame, previous));
	P(frame_code, offsetof(_PyInterpreterFrame, f_executable));
	P(frame_instr, offsetof(_PyInterpreterFrame, instr_ptr));
	P(frame_owner, offsetof(_PyInterpreterFrame, owner));
	P(frame_is_entry, -1);
	P(owner_cstack, FRAME_OWNED_BY_CSTACK);
#elif PY_VERSION_HEX >= 0x030B0000
	P(frame_back, offsetof(_PyInterpreterFrame, previous));
	P(frame_code, offsetof(_PyInterpreterFrame, f_code));
	P(frame_instr, offsetof(_PyInterpreterFrame, prev_instr));
	P(frame_owner, offsetof(_PyInterpreterFrame, owner));
#if PY_VERSION_HEX >= 0x030C0000
	P(frame_is_entry, -1);
	P(owner_cstack, FRAME_OWNED_BY_CSTACK);
#else
	P(frame_is_entry, offsetof(_PyInterpreterFrame, is_entry));
	P(owner_cstack, -1);
#endif
#else
	P(frame_back, offsetof(PyFrameObject, f_back));
	P(frame_code, offsetof(PyFrameObject, f_code));
	P(frame_instr, offsetof(PyFrameObject, f_lasti)); /* int */
	P(frame_owner, -1);
	P(frame_is_entry, -1);
	P(owner_cstack, -1);
#endif
	/* cpython/code.h PyCodeObject */
	P(code_argcount, offsetof(PyCodeObject, co_argcount));
	P(code_firstlineno, offsetof(PyCodeObject, co_firstlineno));
	P(code_filename, offsetof(PyCodeObject, co_filename));
	P(code_name, offsetof(PyCodeObject, co_name));
#if PY_VERSION_HEX >= 0x030B0000
	P(code_qualname, offsetof(PyCodeObject, co_qualname));
	P(code_linetable, offsetof(PyCodeObject, co_linetable));
	P(code_adaptive, offsetof(PyCodeObject, co_code_adaptive));
#elif PY_VERSION_HEX >= 0x030A0000
	P(code_qualname, -1);
	P(code_linetable, offsetof(PyCodeObject, co_linetable));
	P(code_adaptive, -1);
#else
	P(code_qualname, -1);
	P(code_linetable, offsetof(PyCodeObject, co_lnotab));
	P(code_adaptive, -1);
#endif
	/* object.h, cpython/unicodeobject.h, cpython/bytesobject.h */
	P(object_type, offsetof(PyObject, ob_type));
	P(unicode_length, offsetof(PyASCIIObject, length));
	P(unicode_state, offsetof(PyASCIIObject, hash) + sizeof(Py_hash_t));
	P(unicode_ascii_size, sizeof(PyASCIIObject));
	P(unicode_compact_size, sizeof(PyCompactUnicodeObject));
	P(bytes_size, offsetof(PyBytesObject, ob_base.ob_size));
	P(bytes_data, offsetof(PyBytesObject, ob_sval));
	printf("\t},\n");
	return 0;
}
