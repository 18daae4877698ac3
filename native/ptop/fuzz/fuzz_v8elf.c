/* libFuzzer harness for the V8 recogniser (v8elf.c): the input is a node binary's ELF file. Every
 * layout it accepts must pass the parent's own check. */
#include "v8elf.h"
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct v8_elf_info info;
	v8_elf_analyze(data, size, &info);
	if (info.status == V8ELF_SUPPORTED && v8_layout_check(&info.layout) != V8WHY_NONE)
		__builtin_trap();
	if (info.status == V8ELF_UNSUPPORTED && info.why == V8WHY_MISSING && !v8_layout_field_symbol(info.missing)[0])
		__builtin_trap();
	return 0;
}
