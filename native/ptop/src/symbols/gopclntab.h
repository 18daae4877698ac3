/* Go's function table (pclntab, Go 1.16+): function entry addresses, sizes and names of a Go
 * binary whose symbol table was stripped (`go build -ldflags=-s`), found in the .gopclntab section
 * or, when the section headers are gone too, by its header in the file's bytes. The layouts follow
 * the runtime's pcHeader/functab/_func (magic 0xfffffffa for 1.16-1.17, 0xfffffff0 for 1.18-1.19,
 * 0xfffffff1 for 1.20+). Parses bytes the target controls: only ever called unprivileged, with every
 * offset checked against the table's length and the function count bounded. */
#ifndef PTOP_GOPCLNTAB_H
#define PTOP_GOPCLNTAB_H
#include <stddef.h>
#include <stdint.h>

#define GOPCLNTAB_MAX_FUNCS (4u << 20)
#define GOPCLNTAB_MAX_NAME 1024

/* One function: its entry's virtual address, its size (up to the next entry) and its name, a
 * NUL-terminated string inside the table (at most GOPCLNTAB_MAX_NAME bytes). */
typedef void (*gopclntab_fn)(void *arg, uint64_t entry, uint64_t size, const char *name);

/* 0 when tab starts with a pclntab header this reader understands and whose first function is
 * consistent with it; -1 otherwise. */
int gopclntab_check(const uint8_t *tab, size_t len);
/* Offset of the first pclntab in buf (gopclntab_check holds there), or -1. Linear in len. */
long gopclntab_find(const uint8_t *buf, size_t len);
/* Calls fn for each function in address order, stopping at the first entry that is out of order
 * or out of bounds. Returns the number of functions reported, or -1 when tab is no pclntab. */
long gopclntab_foreach(const uint8_t *tab, size_t len, gopclntab_fn fn, void *arg);
#endif
