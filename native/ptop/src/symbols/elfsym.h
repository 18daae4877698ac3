/* Function symbols of one ELF file (.symtab, else .dynsym with the MiniDebugInfo .symtab inside
 * .gnu_debugdata, and Go's pclntab (gopclntab.h); plus a separate debug file's .symtab), its
 * build-id and .gnu_debuglink, and its PT_LOAD segments for turning a file offset into a virtual
 * address. Parses bytes the target controls: only ever called unprivileged, with
 * every size and index bounded. */
#ifndef PTOP_ELFSYM_H
#define PTOP_ELFSYM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELFSYM_MAX_SYMS (4u << 20)
#define ELFSYM_MAX_SECTION (256u << 20)
#define ELFSYM_MAX_NAME 1024
#define ELFSYM_MAX_LOADS 32
/* .gnu_debugdata: compressed and decompressed size, and the xz decoder's memory (real ones are
 * well under 16 MiB decompressed, e.g. Fedora's libc ~1 MiB). */
#define ELFSYM_MAX_DEBUGDATA (64u << 20)

struct elf_sym {
	uint64_t addr, size;
	uint32_t name; /* offset into names */
};

struct elf_load {
	uint64_t offset, filesz, vaddr;
};

struct elfsym {
	struct elf_sym *syms;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	struct elf_load loads[ELFSYM_MAX_LOADS];
	int nloads;
	char build_id[41]; /* hex, "" when absent */
	char debuglink[256]; /* "" when absent */
	bool has_symtab;
	bool has_gopclntab; /* functions named from Go's pclntab (no .symtab) */
	bool has_minidebuginfo; /* symbols came from .gnu_debugdata */
};

/* 0 when the bytes are an ELF file we could read (symbols may still be empty). */
int elfsym_from_fd(int fd, struct elfsym *out);
int elfsym_from_mem(const void *buf, size_t len, struct elfsym *out);
/* Adds the .symtab of a separate debug file (same virtual addresses). */
int elfsym_add_debug_fd(struct elfsym *e, int fd);
/* Sorts the symbols; call once after loading. */
void elfsym_finish(struct elfsym *e);
const char *elfsym_lookup(const struct elfsym *e, uint64_t vaddr);
int elfsym_offset_to_vaddr(const struct elfsym *e, uint64_t file_off, uint64_t *vaddr);
void elfsym_free(struct elfsym *e);
#endif
