/* One walk over an ELF symbol table, shared by the helper's interpreter recognisers (pyelf.c,
 * v8elf.c): each defined, named symbol, with the bounds a hostile file must not get past. */
#ifndef PTOP_SYMTAB_EACH_H
#define PTOP_SYMTAB_EACH_H
#include <gelf.h>
#include <libelf.h>

typedef void (*symtab_fn)(void *ctx, Elf *elf, const char *name, const GElf_Sym *sym);

/* fn for each symbol of the table in scn (sh its header) that is defined and has a name. A table
 * over 256 MiB is skipped and at most 8 Mi entries are read. */
void symtab_each(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, symtab_fn fn, void *ctx);

#endif
