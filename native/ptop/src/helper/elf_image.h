/* An ELF image in memory, opened the one way the helper's recognisers (pyelf.c, v8elf.c) read a
 * file the target controls: libelf over the bytes, and only when it is an ELF object whose header
 * reads. */
#ifndef PTOP_ELF_IMAGE_H
#define PTOP_ELF_IMAGE_H
#include <gelf.h>
#include <libelf.h>
#include <stddef.h>

/* The image's Elf handle (elf_end it) with its header in *eh, or NULL. */
Elf *elf_image_open(const void *buf, size_t len, GElf_Ehdr *eh);

#endif
