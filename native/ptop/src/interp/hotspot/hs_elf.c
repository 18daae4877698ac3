#include "hs_elf.h"
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <sys/stat.h>

static const char *const NAMES[HS_SYM__COUNT] = {
	"gHotSpotVMStructs", "gHotSpotVMStructEntryTypeNameOffset", "gHotSpotVMStructEntryFieldNameOffset",
	"gHotSpotVMStructEntryIsStaticOffset", "gHotSpotVMStructEntryOffsetOffset", "gHotSpotVMStructEntryAddressOffset",
	"gHotSpotVMStructEntryArrayStride", "gHotSpotVMTypes", "gHotSpotVMTypeEntryTypeNameOffset",
	"gHotSpotVMTypeEntrySizeOffset", "gHotSpotVMTypeEntryArrayStride", "gHotSpotVMIntConstants",
	"gHotSpotVMIntConstantEntryNameOffset", "gHotSpotVMIntConstantEntryValueOffset",
	"gHotSpotVMIntConstantEntryArrayStride", "gHotSpotVMLongConstants", "gHotSpotVMLongConstantEntryNameOffset",
	"gHotSpotVMLongConstantEntryValueOffset", "gHotSpotVMLongConstantEntryArrayStride",
};

#define MAX_SYMS (4u << 20)

/* The load bias: the byte at file offset map_off lies at map_start. */
static int bias_of(Elf *e, uint64_t map_start, uint64_t map_off, uint64_t *bias)
{
	size_t n;
	if (elf_getphdrnum(e, &n))
		return -1;
	for (size_t i = 0; i < n && i < 64; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		/* the segment's first page holds map_off (mappings start on a page) */
		uint64_t page_off = ph.p_offset & ~0xfffull;
		if (map_off < page_off || map_off - page_off >= ph.p_filesz + (ph.p_offset - page_off))
			continue;
		*bias = map_start - (ph.p_vaddr - ph.p_offset + map_off);
		return 0;
	}
	return -1;
}

static int find(Elf *e, uint64_t map_start, uint64_t map_off, struct hs_elf_syms *out)
{
	memset(out, 0, sizeof(*out));
	uint64_t bias;
	if (!e || elf_kind(e) != ELF_K_ELF || gelf_getclass(e) != ELFCLASS64 || bias_of(e, map_start, map_off, &bias))
		return -1;
	unsigned found = 0;
	for (Elf_Scn *s = elf_nextscn(e, NULL); s; s = elf_nextscn(e, s)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_DYNSYM || sh.sh_entsize == 0)
			continue;
		Elf_Data *d = elf_getdata(s, NULL);
		if (!d)
			continue;
		size_t nsyms = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < nsyms && i < MAX_SYMS; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
				continue;
			const char *name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name || strncmp(name, "gHotSpotVM", 10))
				continue;
			for (int k = 0; k < HS_SYM__COUNT; k++)
				if (!out->addr[k] && !strcmp(name, NAMES[k])) {
					out->addr[k] = sym.st_value + bias;
					found++;
				}
		}
	}
	return found == HS_SYM__COUNT ? 0 : -1;
}

int hs_elf_find_mem(const void *buf, size_t len, uint64_t map_start, uint64_t map_off, struct hs_elf_syms *out)
{
	elf_version(EV_CURRENT);
	Elf *e = elf_memory((char *)buf, len);
	int rc = find(e, map_start, map_off, out);
	if (e)
		elf_end(e);
	return rc;
}

int hs_elf_find_fd(int fd, uint64_t map_start, uint64_t map_off, struct hs_elf_syms *out)
{
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > HS_ELF_MAX_FILE)
		return -1;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int rc = find(e, map_start, map_off, out);
	if (e)
		elf_end(e);
	return rc;
}
