/* Recognising a CPython interpreter from its ELF file (the executable, or libpython3.X.so):
 * which version it is and where _PyRuntime sits. Parses bytes the target controls: only ever
 * called in ptop's unprivileged helper (elfhelper.c), with every size bounded. */
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

/* Why a CPython is not walked: a code, not text, so that the parent words its note itself and trusts
 * nothing of the helper's but a number it checks (py_elf_why_text). */
enum py_elf_why {
	PYWHY_NONE = 0,
	PYWHY_NO_VERSION,       /* no version string found */
	PYWHY_NO_RUNTIME,       /* no _PyRuntime symbol (or no loadable segment at offset 0) */
	PYWHY_NO_OFFSETS,       /* a version ptop has no offsets for */
	PYWHY_OFFSETS_DISAGREE, /* its _Py_DebugOffsets disagree with ptop's table */
	PYWHY_NO_DEBUG_OFFSETS, /* 3.13+ without _Py_DebugOffsets at _PyRuntime */
	PYWHY__COUNT
};

struct py_elf_info {
	int32_t status;
	uint32_t version_hex;  /* PY_VERSION_HEX when known, else 0 */
	char version_text[24]; /* "3.12.1", "" when unknown */
	int32_t why;           /* enum py_elf_why, for UNSUPPORTED / UNRECOGNISED */
	uint64_t runtime_vaddr;    /* st_value of _PyRuntime */
	uint64_t first_load_vaddr; /* p_vaddr of the PT_LOAD with file offset 0 (page-aligned down) */
	uint64_t code_type_vaddr, unicode_type_vaddr; /* PyCode_Type, PyUnicode_Type (0: absent) */
};

#define PYELF_MAX_FILE (512u << 20)

/* name_hint: the file's basename as mapped ("libpython3.12.so.1.0", "python3.8"), used only to
 * choose between several version strings when the file has no Py_Version symbol. */
/* What `why` means, for a note ("" for PYWHY_NONE or a code out of range). */
const char *py_elf_why_text(int32_t why);
void py_elf_analyze(const void *buf, size_t len, const char *name_hint, struct py_elf_info *out);
#endif
