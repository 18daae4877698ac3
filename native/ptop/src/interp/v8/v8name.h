/* Naming a JavaScript function from V8's objects in the target's memory: its SharedFunctionInfo's
 * name, its Script's file and the line the function starts on. Interprets bytes the target controls:
 * called only after the capability drop, through a bounded reader (a /proc/PID/mem fd opened while
 * privileged); every object's instance type is checked (layout from v8elf.c) and every length capped. */
#ifndef PTOP_V8NAME_H
#define PTOP_V8NAME_H
#include "v8elf.h"
#include <stddef.h>
#include <stdint.h>

#define V8_NAME_MAX 256
#define V8_FILE_MAX 512
#define V8_SOURCE_MAX (64u << 20) /* source bytes read to count lines; a function further in has no line */

/* Reads exactly len bytes at addr of the target; 0 on success. */
typedef int (*v8_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

struct v8_fn_info {
	char name[V8_NAME_MAX]; /* UTF-8; "" for an anonymous function */
	char file[V8_FILE_MAX]; /* the Script's name (a path or URL); "" when it has none */
	int32_t line;           /* 1-based line of the function's start; 0 when not known */
};

/* 0 and *out filled when the SharedFunctionInfo at `sfi` (tagged) is still one and its name and
 * script fields still hold `name_field` and `script_field` (what the BPF walker read at the sample):
 * an object moved or reused by the end of the window is refused (-1), never named as another. */
int v8_function_read(const struct v8_layout *l, v8_read_fn rd, void *ctx, uint64_t sfi, uint64_t name_field,
		     uint64_t script_field, struct v8_fn_info *out);
/* The same for a SharedFunctionInfo read now (an inlined function: no sample-time fields to check;
 * the Code that names it is checked instead, v8_inlined_read). */
int v8_function_read_now(const struct v8_layout *l, v8_read_fn rd, void *ctx, uint64_t sfi, struct v8_fn_info *out);

#define V8_INLINE_MAX 8 /* inlined functions named per frame, innermost first */

/* The functions inlined at pc in the optimised Code `code` (tagged) whose instructions start at
 * istart (what the walker saw: a Code moved or replaced since is refused), innermost first, from its
 * source position table and deoptimization data: writes their SharedFunctionInfos (tagged) to sfis,
 * returns the count (0: none, or nothing that validates). leaf: pc is the sample's own pc, not a
 * return address. */
size_t v8_inlined_read(const struct v8_layout *l, v8_read_fn rd, void *ctx, uint64_t code, uint64_t istart, uint64_t pc,
		       int leaf, uint64_t *sfis, size_t cap);
#endif
