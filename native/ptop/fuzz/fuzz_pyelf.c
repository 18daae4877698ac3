/* libFuzzer harness for recognising CPython from ELF bytes (pyelf.c): version string scan,
 * _Py_DebugOffsets check, symbol tables. The first byte chooses a file-name hint. */
#include "pyelf.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *hints[] = { "", "python3.8", "libpython3.10.so.1.0", "python" };
	if (size < 1)
		return 0;
	char *buf = malloc(size); /* elf_memory wants a writable buffer it does not own */
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	struct py_elf_info info;
	py_elf_analyze(buf, size - 1, hints[data[0] & 3], &info);
	if (info.status < PYELF_NOT_PYTHON || info.status > PYELF_UNRECOGNISED ||
	    strnlen(info.version_text, sizeof(info.version_text)) == sizeof(info.version_text))
		__builtin_trap();
	free(buf);
	return 0;
}
