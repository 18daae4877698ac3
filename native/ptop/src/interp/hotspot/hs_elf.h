/* Recognising HotSpot from its libjvm.so: the exported symbols that describe the VM's own
 * structures (gHotSpotVMStructs and its siblings, the serviceability agent's entry points). Parses
 * a target's file: run only unprivileged (the unwinder child, the parent after its drop), every
 * size bounded; fuzzed (fuzz/fuzz_hselfvm.c). */
#ifndef PTOP_HS_ELF_H
#define PTOP_HS_ELF_H
#include <stddef.h>
#include <stdint.h>

/* The symbols, in this order (hs_elf.c names them). */
enum {
	HS_SYM_STRUCTS, HS_SYM_S_TYPE, HS_SYM_S_FIELD, HS_SYM_S_STATIC, HS_SYM_S_OFFSET, HS_SYM_S_ADDRESS,
	HS_SYM_S_STRIDE, HS_SYM_TYPES, HS_SYM_T_NAME, HS_SYM_T_SIZE, HS_SYM_T_STRIDE, HS_SYM_INTS, HS_SYM_I_NAME,
	HS_SYM_I_VALUE, HS_SYM_I_STRIDE, HS_SYM_LONGS, HS_SYM_L_NAME, HS_SYM_L_VALUE, HS_SYM_L_STRIDE, HS_SYM__COUNT
};

/* Where each symbol is in the target: its virtual address in the file plus the load bias that the
 * mapping of file offset map_off at map_start gives. */
struct hs_elf_syms {
	uint64_t addr[HS_SYM__COUNT];
};

#define HS_ELF_MAX_FILE (512u << 20)

/* 0 when every symbol was found; -1 when the bytes are no ELF file or lack one (not HotSpot, or
 * a VM without the serviceability tables). */
int hs_elf_find_mem(const void *buf, size_t len, uint64_t map_start, uint64_t map_off, struct hs_elf_syms *out);
int hs_elf_find_fd(int fd, uint64_t map_start, uint64_t map_off, struct hs_elf_syms *out);
#endif
