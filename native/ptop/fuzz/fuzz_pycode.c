/* libFuzzer harness for the code-object reader (pycode.c): the input is a target's memory.
 * Byte 0 picks the CPython version row, bytes 1-2 where the code object starts, bytes 3-6 the
 * co_firstlineno the BPF walker "saw"; the rest is memory mapped at BASE. Reads outside it fail,
 * as a read of unmapped target memory does. Type pointers are checked against the two words at
 * BASE (so the fuzzer can satisfy them) or not at all (byte 0 bit 7). */
#include "pycode.h"
#include "fuzz_mem.h"
#include <stdint.h>
#include <string.h>

#define BASE FUZZ_MEM_BASE

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 7)
		return 0;
	const struct py_version_offsets *o = py_offsets_for(0x03080000u + ((uint32_t)(data[0] & 0x7f) % 6 << 16));
	if (!o)
		return 0;
	uint64_t code = BASE + (uint64_t)(data[1] | data[2] << 8);
	int32_t line;
	memcpy(&line, data + 3, 4);
	struct fuzz_mem m = { data + 7, size - 7 };
	struct py_types t = { 0, 0 };
	if (!(data[0] & 0x80) && m.n >= 16) {
		memcpy(&t.code_type, m.p, 8);
		memcpy(&t.unicode_type, m.p + 8, 8);
	}
	struct py_code_info ci;
	if (py_code_read(o, &t, fuzz_mem_read, &m, code, line, &ci) == 0) {
		/* what ptop emits: NUL-terminated, within bounds, never empty */
		if (strnlen(ci.name, sizeof(ci.name)) == sizeof(ci.name) || !ci.name[0] ||
		    strnlen(ci.filename, sizeof(ci.filename)) == sizeof(ci.filename))
			__builtin_trap();
	}
	char s[32];
	(void)py_str_read(o, &t, fuzz_mem_read, &m, code, s, sizeof(s));
	return 0;
}
