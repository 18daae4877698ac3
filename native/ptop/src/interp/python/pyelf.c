#include "pyelf.h"
#include "pyoffsets.h"
#include "elf_image.h"
#include "symtab_each.h"
#include <ctype.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PY_VERSION_HEX layout: major << 24 | minor << 16 | micro << 8 | level << 4 | serial. */
static void version_text(uint32_t hex, char *out, size_t n)
{
	snprintf(out, n, "%u.%u.%u", hex >> 24, (hex >> 16) & 0xff, (hex >> 8) & 0xff);
}

struct syms {
	uint64_t runtime, runtime_size, py_version, code_type, unicode_type;
	int has_runtime, has_py_version, is_python;
};

static void take_symbol(void *ctx, Elf *elf, const char *name, const GElf_Sym *sym)
{
	struct syms *s = ctx;
	(void)elf;
	if (!strcmp(name, "_PyRuntime")) {
		s->runtime = sym->st_value;
		s->runtime_size = sym->st_size;
		s->has_runtime = 1;
	} else if (!strcmp(name, "Py_Version")) {
		s->py_version = sym->st_value;
		s->has_py_version = 1;
	} else if (!strcmp(name, "PyCode_Type")) {
		s->code_type = sym->st_value;
	} else if (!strcmp(name, "PyUnicode_Type")) {
		s->unicode_type = sym->st_value;
	} else if (!strcmp(name, "Py_Initialize") || !strcmp(name, "Py_InitializeEx") ||
		   !strcmp(name, "PyEval_EvalCode")) {
		s->is_python = 1;
	}
}

/* Bytes at virtual address `vaddr` in the file (a section with file contents), or NULL. */
static const unsigned char *at_vaddr(Elf *elf, const unsigned char *buf, size_t len, uint64_t vaddr, size_t n)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_ALLOC))
			continue;
		if (vaddr < sh.sh_addr || vaddr - sh.sh_addr >= sh.sh_size || sh.sh_size - (vaddr - sh.sh_addr) < n)
			continue;
		uint64_t off = sh.sh_offset + (vaddr - sh.sh_addr);
		if (off < sh.sh_offset || off > len || len - off < n)
			return NULL;
		return buf + off;
	}
	return NULL;
}

/* "3.8.18", "3.10.0rc2", "3.9.1+" as a whole NUL-terminated string: returns PY_VERSION_HEX
 * without level/serial, else 0. */
static uint32_t parse_version_string(const char *s, size_t max)
{
	unsigned maj, min, mic;
	int used = 0;
	if (max < 5 || sscanf(s, "%1u.%2u.%2u%n", &maj, &min, &mic, &used) != 3 || maj < 2 || maj > 3)
		return 0;
	const char *p = s + used;
	if (!strncmp(p, "rc", 2))
		p += 2;
	else if (*p == 'a' || *p == 'b')
		p++;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '+')
		p++;
	if (*p)
		return 0;
	return maj << 24 | min << 16 | mic << 8;
}

/* Before 3.11 there is no Py_Version. PY_VERSION ("3.8.18", formatted by Py_GetVersion) is a
 * string in .rodata, but the linker may store it as the tail of a longer string ("…/Python-3.8.18"),
 * so every NUL-terminated tail shaped like a 3.x version counts. They must agree on major.minor,
 * or the one the file is named after (python3.8, libpython3.8.so.1.0) is taken. */
static uint32_t version_from_rodata(Elf *elf, const unsigned char *buf, size_t len, const char *hint)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint32_t found[8];
	int nfound = 0, overflow = 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".rodata"))
			continue;
		if (sh.sh_offset > len || sh.sh_size > len - sh.sh_offset)
			return 0;
		const char *p = (const char *)buf + sh.sh_offset;
		size_t n = sh.sh_size;
		for (size_t i = 0; i + 5 < n; i++) {
			if (p[i] != '3' || p[i + 1] != '.' ||
			    (i > 0 && (isdigit((unsigned char)p[i - 1]) || p[i - 1] == '.')))
				continue;
			size_t l = strnlen(p + i, n - i);
			if (l >= 12 || i + l >= n)
				continue;
			uint32_t v = parse_version_string(p + i, l + 1);
			if (!v)
				continue;
			int dup = 0;
			for (int k = 0; k < nfound; k++)
				dup |= (found[k] & 0xffff0000u) == (v & 0xffff0000u);
			if (!dup) {
				if (nfound < 8)
					found[nfound++] = v;
				else
					overflow = 1;
			}
		}
	}
	/* the one the file is named after, when there is one */
	for (int k = 0; k < nfound && hint; k++) {
		char want[16];
		snprintf(want, sizeof(want), "python%u.%u", found[k] >> 24, (found[k] >> 16) & 0xff);
		const char *m = strstr(hint, want);
		if (m && !isdigit((unsigned char)m[strlen(want)]))
			return found[k];
	}
	return nfound == 1 && !overflow ? found[0] : 0;
}

/* 3.13+: _PyRuntime begins with _Py_DebugOffsets (cookie "xdebugpy", version, free_threaded,
 * then the offsets ptop also has in its table). Returns -1 when the cookie is there but
 * disagrees with the table, 1 when it agrees, 0 when absent. */
static int check_debug_offsets(const unsigned char *p, const struct py_version_offsets *o, uint32_t *version)
{
	if (!p || memcmp(p, "xdebugpy", 8))
		return 0;
	uint64_t f[64];
	memcpy(f, p, sizeof(f));
	*version = (uint32_t)f[1];
	/* pycore_runtime.h (3.13) _Py_DebugOffsets, counted in uint64_t after the cookie:
	 * [1] version [2] free_threaded [3..5] runtime_state{size, finalizing, interpreters_head}
	 * [6..18] interpreter_state{size, id, next, threads_head, …} [19..27] thread_state{size,
	 * prev, next, interp, current_frame, thread_id, native_thread_id, …} [28..33]
	 * interpreter_frame{size, previous, executable, instr_ptr, localsplus, owner} [34..43]
	 * code_object{size, filename, name, qualname, linetable, firstlineno, argcount, …,
	 * co_code_adaptive} */
	if (!o)
		return 1;
	if (f[2] != 0 || f[5] != (uint64_t)o->runtime_interpreters_head || f[9] != (uint64_t)o->interp_tstate_head ||
	    f[21] != (uint64_t)o->tstate_next || f[23] != (uint64_t)o->tstate_frame ||
	    f[24] != (uint64_t)o->tstate_thread_id || f[25] != (uint64_t)o->tstate_native_thread_id ||
	    f[29] != (uint64_t)o->frame_back || f[30] != (uint64_t)o->frame_code ||
	    f[31] != (uint64_t)o->frame_instr || f[33] != (uint64_t)o->frame_owner ||
	    f[35] != (uint64_t)o->code_filename || f[36] != (uint64_t)o->code_name ||
	    f[37] != (uint64_t)o->code_qualname || f[39] != (uint64_t)o->code_firstlineno ||
	    f[43] != (uint64_t)o->code_adaptive)
		return -1;
	return 1;
}

static const char *const WHY[PYWHY__COUNT] = {
	[PYWHY_NONE] = "",
	[PYWHY_NO_VERSION] = "no version string found in the interpreter",
	[PYWHY_NO_RUNTIME] = "no _PyRuntime symbol",
	[PYWHY_NO_OFFSETS] = "no offsets for this version",
	[PYWHY_OFFSETS_DISAGREE] = "its _Py_DebugOffsets disagree with ptop's table for this version (a debug or "
				   "free-threaded build, or not CPython)",
	[PYWHY_NO_DEBUG_OFFSETS] = "no _Py_DebugOffsets at _PyRuntime",
};

const char *py_elf_why_text(int32_t why)
{
	return why >= 0 && why < PYWHY__COUNT ? WHY[why] : "";
}

static void set(struct py_elf_info *out, int status, enum py_elf_why why)
{
	out->status = status;
	out->why = why;
}

void py_elf_analyze(const void *buf, size_t len, const char *name_hint, struct py_elf_info *out)
{
	memset(out, 0, sizeof(*out));
	GElf_Ehdr eh;
	Elf *elf = elf_image_open(buf, len, &eh);
	if (!elf)
		return;
	if (gelf_getclass(elf) != ELFCLASS64) {
		elf_end(elf);
		return;
	}
	struct syms s = { 0 };
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			symtab_each(elf, scn, &sh, take_symbol, &s);
	if (!s.is_python && !s.has_runtime) {
		elf_end(elf);
		return; /* not CPython */
	}
	size_t nph = 0;
	int have_load = 0;
	if (elf_getphdrnum(elf, &nph) == 0)
		for (size_t i = 0; i < nph && i < 256; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_offset == 0) {
				out->first_load_vaddr = ph.p_vaddr & ~0xfffull;
				have_load = 1;
				break;
			}
		}

	uint32_t v = 0;
	const unsigned char *pv = s.has_py_version ? at_vaddr(elf, buf, len, s.py_version, 4) : NULL;
	if (pv) {
		memcpy(&v, pv, 4); /* Py_Version: const unsigned long = PY_VERSION_HEX (3.11+) */
		if ((v >> 24) != 3)
			v = 0;
	}
	if (!v)
		v = version_from_rodata(elf, buf, len, name_hint);
	out->version_hex = v;
	if (v)
		version_text(v, out->version_text, sizeof(out->version_text));
	if (!v) {
		set(out, PYELF_UNRECOGNISED, PYWHY_NO_VERSION);
	} else if (!s.has_runtime || !have_load) {
		set(out, (v >> 24) == 3 && ((v >> 16) & 0xff) >= 8 ? PYELF_UNRECOGNISED : PYELF_UNSUPPORTED,
		    PYWHY_NO_RUNTIME);
	} else {
		const struct py_version_offsets *o = py_offsets_for(v);
		uint32_t dv = 0;
		int dbg = check_debug_offsets(at_vaddr(elf, buf, len, s.runtime, 512), o, &dv);
		if (!o) {
			set(out, PYELF_UNSUPPORTED, PYWHY_NO_OFFSETS);
		} else if (dbg < 0 || (dbg > 0 && (dv & 0xffff0000u) != (v & 0xffff0000u))) {
			set(out, PYELF_UNSUPPORTED, PYWHY_OFFSETS_DISAGREE);
		} else if (o->version >= 0x030d0000 && dbg == 0) {
			set(out, PYELF_UNRECOGNISED, PYWHY_NO_DEBUG_OFFSETS);
		} else {
			out->status = PYELF_SUPPORTED;
			out->runtime_vaddr = s.runtime;
			out->code_type_vaddr = s.code_type;
			out->unicode_type_vaddr = s.unicode_type;
		}
	}
	elf_end(elf);
}
