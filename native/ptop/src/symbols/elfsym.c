#include "elfsym.h"
#include "gopclntab.h"
#include "strtab.h"
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

static void lib_init(void)
{
	static int done;
	if (!done) {
		elf_version(EV_CURRENT);
		done = 1;
	}
}

static uint32_t add_name(struct elfsym *e, const char *s)
{
	size_t n = strnlen(s, ELFSYM_MAX_NAME);
	if (e->names_len + n + 1 > e->names_cap) {
		size_t ncap = e->names_cap ? e->names_cap * 2 : 65536;
		while (ncap < e->names_len + n + 1)
			ncap *= 2;
		e->names = xrealloc(e->names, ncap, 1);
		e->names_cap = ncap;
	}
	uint32_t off = (uint32_t)e->names_len;
	memcpy(e->names + off, s, n);
	e->names[off + n] = 0;
	e->names_len += n + 1;
	return off;
}

static int read_symbols(struct elfsym *e, Elf *elf, Elf_Scn *scn, GElf_Shdr *sh)
{
	if (sh->sh_entsize == 0 || sh->sh_size > ELFSYM_MAX_SECTION || sh->sh_type == SHT_NOBITS)
		return -1;
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return -1;
	size_t count = data->d_size / sh->sh_entsize;
	for (size_t i = 0; i < count && e->n < ELFSYM_MAX_SYMS; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			break;
		int type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !name[0])
			continue;
		if (e->n == e->cap) {
			e->cap = e->cap ? e->cap * 2 : 1024;
			e->syms = xrealloc(e->syms, e->cap, sizeof(*e->syms));
		}
		e->syms[e->n++] = (struct elf_sym){ .addr = sym.st_value, .size = sym.st_size, .name = add_name(e, name) };
	}
	return 0;
}

static void hex(char *out, const unsigned char *b, size_t n)
{
	static const char d[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[b[i] >> 4];
		out[2 * i + 1] = d[b[i] & 15];
	}
	out[2 * n] = 0;
}

static void read_build_id(struct elfsym *e, Elf_Scn *scn, GElf_Shdr *sh)
{
	if (sh->sh_size > 65536)
		return;
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return;
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	while (off < data->d_size && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz >= 1 && nh.n_descsz <= 20 &&
		    desc_off + nh.n_descsz <= data->d_size && name_off + 4 <= data->d_size &&
		    memcmp((char *)data->d_buf + name_off, "GNU", 4) == 0) {
			hex(e->build_id, (unsigned char *)data->d_buf + desc_off, nh.n_descsz);
			return;
		}
	}
}

static void read_debuglink(struct elfsym *e, Elf_Scn *scn, GElf_Shdr *sh)
{
	if (sh->sh_size > 4096 || sh->sh_type == SHT_NOBITS)
		return;
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf || data->d_size == 0)
		return;
	size_t n = strnlen(data->d_buf, data->d_size);
	if (n == 0 || n >= data->d_size || n >= sizeof(e->debuglink))
		return;
	const char *s = data->d_buf;
	/* A file name, never a path: refuse '/' and "..". */
	if (memchr(s, '/', n) || strcmp(s, "..") == 0 || strcmp(s, ".") == 0)
		return;
	memcpy(e->debuglink, s, n);
	e->debuglink[n] = 0;
}

static void add_go_func(void *arg, uint64_t entry, uint64_t size, const char *name)
{
	struct elfsym *e = arg;
	if (e->n >= ELFSYM_MAX_SYMS || entry == 0)
		return;
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 1024;
		e->syms = xrealloc(e->syms, e->cap, sizeof(*e->syms));
	}
	e->syms[e->n++] = (struct elf_sym){ .addr = entry, .size = size, .name = add_name(e, name) };
}

/* A Go binary without .symtab (go build -ldflags=-s) still carries the runtime's own function
 * table: its .gopclntab section (.data.rel.ro.gopclntab in a PIE), else, with the section headers
 * stripped too, the table found by its header in a loaded segment's bytes (bounded reads). Only a
 * file without section headers is searched: a stripped library (Debian's libc) is not read whole. */
static void read_gopclntab(struct elfsym *e, Elf *elf, Elf_Scn *pcln, bool sections)
{
	if (pcln) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (gelf_getshdr(pcln, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size <= ELFSYM_MAX_SECTION &&
		    (data = elf_getdata(pcln, NULL)) && data->d_buf &&
		    gopclntab_foreach(data->d_buf, data->d_size, add_go_func, e) >= 0) {
			e->has_gopclntab = true;
			return;
		}
	}
	for (int i = 0; !sections && i < e->nloads; i++) {
		const struct elf_load *l = &e->loads[i];
		if (l->filesz == 0 || l->filesz > ELFSYM_MAX_SECTION)
			continue;
		Elf_Data *data = elf_getdata_rawchunk(elf, (int64_t)l->offset, l->filesz, ELF_T_BYTE);
		if (!data || !data->d_buf)
			continue;
		long at = gopclntab_find(data->d_buf, data->d_size);
		if (at >= 0 && gopclntab_foreach((const uint8_t *)data->d_buf + at, data->d_size - (size_t)at, add_go_func, e) >= 0) {
			e->has_gopclntab = true;
			return;
		}
	}
}

static bool is_gopclntab(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	return n >= 10 && strcmp(name + n - 10, ".gopclntab") == 0;
}

/* MiniDebugInfo (.gnu_debugdata): an xz-compressed ELF whose .symtab holds the functions that
 * .dynsym lacks (static ones), kept by distributions that strip everything else. Decompressed
 * into memory with the output and the decoder's memory both bounded (a hostile section could
 * expand without end), then read like a debug file. */
static int load(Elf *elf, struct elfsym *e, bool symbols_only);

static char *xz_decode(const void *in, size_t in_len, size_t *out_len)
{
	lzma_stream st = LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&st, ELFSYM_MAX_DEBUGDATA, 0) != LZMA_OK)
		return NULL;
	size_t cap = 1 << 20, len = 0;
	char *out = malloc(cap);
	st.next_in = in;
	st.avail_in = in_len;
	lzma_ret r = LZMA_OK;
	while (out && r == LZMA_OK) {
		if (len == cap) {
			if (cap >= ELFSYM_MAX_DEBUGDATA)
				break; /* larger than any real MiniDebugInfo: refused */
			cap *= 2;
			char *n = realloc(out, cap);
			if (!n)
				break;
			out = n;
		}
		st.next_out = (uint8_t *)out + len;
		st.avail_out = cap - len;
		r = lzma_code(&st, LZMA_FINISH);
		len = cap - st.avail_out;
	}
	lzma_end(&st);
	if (r != LZMA_STREAM_END) {
		free(out);
		return NULL;
	}
	*out_len = len;
	return out;
}

static void read_debugdata(struct elfsym *e, Elf_Scn *scn, GElf_Shdr *sh)
{
	if (sh->sh_type == SHT_NOBITS || sh->sh_size == 0 || sh->sh_size > ELFSYM_MAX_DEBUGDATA)
		return;
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf || data->d_size == 0)
		return;
	size_t len;
	char *img = xz_decode(data->d_buf, data->d_size, &len);
	if (!img)
		return;
	Elf *inner = elf_memory(img, len);
	bool had = e->has_symtab;
	e->has_symtab = false;
	if (load(inner, e, true) == 0 && e->has_symtab)
		e->has_minidebuginfo = true;
	e->has_symtab = had; /* a full debug file, when installed, is still looked for */
	if (inner)
		elf_end(inner);
	free(img);
}

static int load(Elf *elf, struct elfsym *e, bool symbols_only)
{
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		return -1;
	/* No section headers (stripped with them): program headers and the Go table still serve. */
	size_t shstrndx = 0, shnum = 0;
	bool sections = elf_getshdrstrndx(elf, &shstrndx) == 0 && elf_getshdrnum(elf, &shnum) == 0 && shnum > 0;
	if (!symbols_only) {
		size_t phnum;
		if (elf_getphdrnum(elf, &phnum) == 0) {
			for (size_t i = 0; i < phnum && i < 4096; i++) {
				GElf_Phdr ph;
				if (!gelf_getphdr(elf, (int)i, &ph))
					break;
				if (ph.p_type == PT_LOAD && e->nloads < ELFSYM_MAX_LOADS)
					e->loads[e->nloads++] = (struct elf_load){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
			}
		}
	}
	Elf_Scn *symtab = NULL, *dynsym = NULL, *debugdata = NULL;
	GElf_Shdr symtab_sh, dynsym_sh, debugdata_sh = { 0 };
	Elf_Scn *scn = NULL, *pcln = NULL;
	size_t guard = 0;
	while (sections && (scn = elf_nextscn(elf, scn)) && guard++ < 65536) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			symtab_sh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dynsym_sh = sh;
		} else if (!symbols_only && sh.sh_type == SHT_NOTE && !e->build_id[0]) {
			read_build_id(e, scn, &sh);
		} else if (!symbols_only && sh.sh_type == SHT_PROGBITS) {
			const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (name && strcmp(name, ".gnu_debuglink") == 0)
				read_debuglink(e, scn, &sh);
			else if (!pcln && is_gopclntab(name))
				pcln = scn;
			else if (name && strcmp(name, ".gnu_debugdata") == 0 && !debugdata) {
				debugdata = scn;
				debugdata_sh = sh;
			}
		}
	}
	if (symtab && read_symbols(e, elf, symtab, &symtab_sh) == 0)
		e->has_symtab = true;
	/* .dynsym only when there is no .symtab: the full table already holds the exported ones. */
	if (dynsym && !symbols_only && !e->has_symtab)
		read_symbols(e, elf, dynsym, &dynsym_sh);
	/* Not nested: symbols_only is set for the inner image. */
	if (debugdata && !symbols_only && !e->has_symtab)
		read_debugdata(e, debugdata, &debugdata_sh);
	if (!symbols_only && !e->has_symtab)
		read_gopclntab(e, elf, pcln, sections);
	return 0;
}

int elfsym_from_fd(int fd, struct elfsym *out)
{
	lib_init();
	memset(out, 0, sizeof(*out));
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	int rc = load(elf, out, false);
	if (elf)
		elf_end(elf);
	return rc;
}

int elfsym_from_mem(const void *buf, size_t len, struct elfsym *out)
{
	lib_init();
	memset(out, 0, sizeof(*out));
	Elf *elf = elf_memory((char *)buf, len);
	int rc = load(elf, out, false);
	if (elf)
		elf_end(elf);
	return rc;
}

int elfsym_add_debug_fd(struct elfsym *e, int fd)
{
	lib_init();
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	bool had = e->has_symtab;
	e->has_symtab = false;
	int rc = load(elf, e, true);
	if (elf)
		elf_end(elf);
	if (rc || !e->has_symtab)
		rc = -1;
	e->has_symtab = e->has_symtab || had;
	return rc;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Prefer the sized symbol at an address (aliases with size 0 sort after). */
	return (x->size < y->size) - (x->size > y->size);
}

void elfsym_finish(struct elfsym *e)
{
	if (e->n)
		qsort(e->syms, e->n, sizeof(*e->syms), cmp_sym);
}

const char *elfsym_lookup(const struct elfsym *e, uint64_t vaddr)
{
	size_t lo = 0, hi = e->n;
	while (lo < hi) { /* first symbol with addr > vaddr */
		size_t mid = lo + (hi - lo) / 2;
		if (e->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	uint64_t at = e->syms[lo - 1].addr;
	/* Among symbols at the same address, take the first (sized) one. */
	size_t i = lo - 1;
	while (i > 0 && e->syms[i - 1].addr == at)
		i--;
	const struct elf_sym *s = &e->syms[i];
	if (s->size && vaddr - s->addr >= s->size)
		return NULL;
	if (!s->size && vaddr - s->addr > (1u << 20))
		return NULL;
	return e->names + s->name;
}

int elfsym_offset_to_vaddr(const struct elfsym *e, uint64_t off, uint64_t *vaddr)
{
	for (int i = 0; i < e->nloads; i++) {
		const struct elf_load *l = &e->loads[i];
		if (off >= l->offset && off - l->offset < l->filesz) {
			*vaddr = off - l->offset + l->vaddr;
			return 0;
		}
	}
	return -1;
}

void elfsym_free(struct elfsym *e)
{
	free(e->syms);
	free(e->names);
	memset(e, 0, sizeof(*e));
}
