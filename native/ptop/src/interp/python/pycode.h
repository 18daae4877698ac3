/* Reading a CPython code object out of the target's memory: qualified name (co_qualname, 3.11+;
 * co_name before), file name and first line. Interprets bytes the target controls: called only
 * after the capability drop, through a bounded reader (a /proc/PID/mem fd opened while
 * privileged); every length is capped and every object's type pointer checked. */
#ifndef PTOP_PYCODE_H
#define PTOP_PYCODE_H
#include "pyoffsets.h"
#include <stddef.h>
#include <stdint.h>

#define PY_NAME_MAX 256
#define PY_FILE_MAX 512

/* Reads exactly len bytes at addr of the target; 0 on success. */
typedef int (*py_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

struct py_types {
	uint64_t code_type, unicode_type; /* run-time addresses of PyCode_Type, PyUnicode_Type; 0 = unknown */
};

struct py_code_info {
	char name[PY_NAME_MAX];     /* UTF-8 */
	char filename[PY_FILE_MAX]; /* UTF-8 */
	int32_t firstlineno;
};

/* 0 and *out filled when `code` is a code object whose co_firstlineno is still `firstlineno`
 * (what the BPF walker saw: a freed and reused address is refused, not renamed). */
int py_code_read(const struct py_version_offsets *o, const struct py_types *t, py_read_fn rd, void *ctx,
		 uint64_t code, int32_t firstlineno, struct py_code_info *out);
/* A Python str object as UTF-8 into out (cap bytes incl. NUL); 0 on success. */
int py_str_read(const struct py_version_offsets *o, const struct py_types *t, py_read_fn rd, void *ctx,
		uint64_t str, char *out, size_t cap);
#endif
