#include "elf_image.h"

Elf *elf_image_open(const void *buf, size_t len, GElf_Ehdr *eh)
{
	elf_version(EV_CURRENT);
	Elf *elf = elf_memory((char *)buf, len);
	if (!elf)
		return NULL;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, eh)) {
		elf_end(elf);
		return NULL;
	}
	return elf;
}
