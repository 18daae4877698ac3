/* Recognising a CPython interpreter from its ELF file (the executable, or libpython3.X.so):
 * which version it is and where _PyRuntime sits. Parses bytes the target controls: only ever
 * called in ptop's unprivileged helper (pyhelper.c), with every size bounded. */
#ifndef PTOP_PYELF_H
#define PTOP_PYELF_H
#include <stddef.h>
#include <stdint.h>

enum py_elf_status {
	PYELF_NOT_PYTHON = 0, /* no CPython symbols: say nothing */
	PYELF_SUPPORTED,      /* version has a row in pyoffsets.c and _PyRuntime was found */
	PYELF_UNSUPPORTED,    /* CPython, but a version ptop has no offsets for (version_text says which) */
	PYELF_UNRECOGNISED,   /* CPython symbols, but the version or _PyRuntime could not be read */
};

struct py_elf_info {
	int32_t status;
	uint32_t version_hex;  /* PY_VERSION_HEX when known, else 0 */
	char version_text[24]; /* "3.12.1", "" when unknown */
	char detail[96];       /* why, for UNSUPPORTED / UNRECOGNISED */
	uint64_t runtime_vaddr;    /* st_value of _PyRuntime */
	uint64_t first_load_vaddr; /* p_vaddr of the PT_LOAD with file offset 0 (page-aligned down) */
	uint64_t code_type_vaddr, unicode_type_vaddr; /* PyCode_Type, PyUnicode_Type (0: absent) */
};

#define PYELF_MAX_FILE (512u << 20)

/* name_hint: the file's basename as mapped ("libpython3.12.so.1.0", "python3.8"), used only to
 * choose between several version strings when the file has no Py_Version symbol. */
void py_elf_analyze(const void *buf, size_t len, const char *name_hint, struct py_elf_info *out);
#endif
