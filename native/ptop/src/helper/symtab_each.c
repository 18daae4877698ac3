#include "symtab_each.h"
#include <stddef.h>

void symtab_each(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, symtab_fn fn, void *ctx)
{
	if (sh->sh_entsize == 0 || sh->sh_type == SHT_NOBITS || sh->sh_size > (256u << 20))
		return;
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return;
	size_t count = data->d_size / sh->sh_entsize;
	for (size_t i = 0; i < count && i < (8u << 20); i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name)
			fn(ctx, elf, name, &sym);
	}
}
