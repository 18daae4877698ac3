/* libFuzzer harness for the V8 function namer (v8name.c): the input is a target's memory. Bytes 0-1
 * say where a SharedFunctionInfo starts, bytes 2-3 where a Code object starts, bytes 4-7 the pc's
 * offset from the instructions' start the Code holds; the rest is memory mapped at BASE, and reads
 * outside it fail as a read of unmapped target memory does. The layout is Node.js 20's, read back
 * by v8elf.c from this harness's own symbols (v8_seed_layout.c is linked in). */
#include "v8name.h"
#include "fuzz_mem.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE FUZZ_MEM_BASE

static const struct v8_layout *layout(void)
{
	static struct v8_elf_info info;
	static int done;
	if (done)
		return &info.layout;
	FILE *f = fopen("/proc/self/exe", "rb");
	static char buf[64 << 20];
	size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
	if (f)
		fclose(f);
	v8_elf_analyze(buf, n, &info);
	if (info.status != V8ELF_SUPPORTED) {
		fprintf(stderr, "fuzz_v8name: its own v8dbg_ layout does not read back (why %d)\n", info.why);
		abort();
	}
	done = 1;
	return &info.layout;
}

static void check(const struct v8_fn_info *fn)
{
	/* what ptop emits: NUL-terminated within bounds */
	if (strnlen(fn->name, sizeof(fn->name)) == sizeof(fn->name) || strnlen(fn->file, sizeof(fn->file)) == sizeof(fn->file) ||
	    fn->line < 0)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct v8_layout *l = layout();
	if (size < 8)
		return 0;
	uint64_t sfi = BASE + (uint64_t)(data[0] | data[1] << 8) + 1;
	uint64_t code = BASE + (uint64_t)(data[2] | data[3] << 8) + 1;
	uint32_t off;
	memcpy(&off, data + 4, 4);
	struct fuzz_mem m = { data + 8, size - 8 };
	struct v8_fn_info fn;
	if (v8_function_read_now(l, fuzz_mem_read, &m, sfi, &fn) == 0)
		check(&fn);
	uint64_t istart, sfis[V8_INLINE_MAX];
	if (l->code_istart && fuzz_mem_read(&m, code - 1 + (uint64_t)l->code_istart, &istart, 8) == 0) {
		size_t n = v8_inlined_read(l, fuzz_mem_read, &m, code, istart, istart + off, off & 1, sfis, V8_INLINE_MAX);
		if (n > V8_INLINE_MAX)
			__builtin_trap();
		for (size_t i = 0; i < n; i++)
			if (v8_function_read_now(l, fuzz_mem_read, &m, sfis[i], &fn) == 0)
				check(&fn);
	}
	return 0;
}
