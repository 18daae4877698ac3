/* The unwinder's two message formats (see unwind.h), and the parent's check of what the child
 * sends. Parent -> child: fixed `struct umsg` records over a SEQPACKET socket, a MAP carrying one
 * descriptor. Child -> parent: one `struct unwound_hdr` + pcs + interpreter bytes per record, a
 * trailer (axis UINT32_MAX, npcs 3 * P__COUNT) with the count of samples that could not be unwound
 * and, per axis, the samples it could not aggregate and those it could not hold back after an exec (struct unwind_trailer), then end of stream.
 * The child parses target files, so the parent trusts none of its bytes. */
#ifndef PTOP_UNWIND_WIRE_H
#define PTOP_UNWIND_WIRE_H
#include "unwind.h"
#include <stddef.h>
#include <stdint.h>

/* GONE: a fresh process state, its table follows (MAPs). MAPS_BEGIN .. MAPS_END: a new table for
 * a known process, read at read_ns, of the image of exec generation gen; within that image the
 * child switches to it only for the samples taken after read_ns (unwind_child.c, "Tables and
 * execve"). */
enum { MSG_MAP = 1, MSG_GONE = 2, MSG_STOP = 3, MSG_MAPS_BEGIN = 4, MSG_MAPS_END = 5, MSG_JVM_LIB = 6, MSG_JVM_MEM = 7 };
/* JVM_LIB: a JVM's libjvm.so (mapped at start from file offset off), JVM_MEM: its /proc/PID/mem,
 * opened by the parent while privileged (the kernel's ptrace check is made at open); after a GONE
 * (hotspot.c, README "Java frames"). */

struct umsg {
	uint32_t type;
	int32_t pid;
	uint64_t start, end, off;
	uint64_t read_ns; /* GONE and MAPS_BEGIN: CLOCK_MONOTONIC ns before the maps were read */
	uint64_t flags;   /* MAP: UMAP_* */
	uint64_t gen;     /* GONE and MAPS_BEGIN: the exec generation of the image the table is of */
};

#define UMAP_VDSO 1 /* the kernel's [vdso] (its file: ptop's own image, vdso.h) */

/* The largest child -> parent record. */
#define UNWIND_RESULT_MAX (sizeof(struct unwound_hdr) + PTOP_MAX_UNWIND_DEPTH * 8 + PTOP_INTERP_MAX)

/* The trailer's counts. The samples in `full` and `no_memory` are in no stack the child sends: the
 * parent counts them with the axis's lost events (summary.lost), so none is dropped silently. */
struct unwind_trailer {
	uint64_t failed;              /* snapshots that gave no frame (aggregated as [truncated] stacks) */
	uint64_t full[P__COUNT];      /* per axis: not aggregated, the aggregate had reached its bound */
	uint64_t no_memory[P__COUNT]; /* per axis: not aggregated, out of memory */
	/* per axis: samples of a process that had just exec'd, unwound at once because the store of
	 * held samples was full (unwind_park.h): aggregated, but perhaps [truncated] */
	uint64_t unheld[P__COUNT];
};
#define UNWIND_TRAILER_COUNTS (3 * P__COUNT)

/* A name the child read during the window for an interpreter frame's address (a Java method: its
 * Method* and stamp, hs_namecache.h): a header with axis UNWIND_NAME_AXIS, tgid the process,
 * npcs and interp_len 0, then struct unwind_name and its len bytes of text (no NUL, no control byte),
 * before the stacks. */
#define UNWIND_NAME_AXIS (UINT32_MAX - 1)
#define UNWIND_NAME_MAX 511
struct unwind_name {
	uint64_t addr;
	uint32_t stamp;
	uint32_t len;
};

enum { UNWIND_REC_BAD = 0, UNWIND_REC_STACK = 1, UNWIND_REC_TRAILER = 2, UNWIND_REC_NAME = 3 };
/* One record of n bytes from the child. STACK: *h is its header, its pcs start at buf + sizeof(*h)
 * (npcs of them, unaligned) and its interpreter bytes follow. TRAILER: *t is set. NAME: *h is its
 * header, unwind_name_decode() reads the rest. */
int unwind_check_result(const uint8_t *buf, size_t n, struct unwound_hdr *h, struct unwind_trailer *t);
/* The trailer record for t: sizeof(struct unwound_hdr) + UNWIND_TRAILER_COUNTS * 8 bytes at out. */
size_t unwind_trailer_encode(const struct unwind_trailer *t, uint8_t *out);
/* The NAME record of text[0..len) (len 1..UNWIND_NAME_MAX) at out (UNWIND_RESULT_MAX bytes); its length. */
size_t unwind_name_encode(uint32_t tgid, const struct unwind_name *nm, const char *text, uint8_t *out);
/* A NAME record's name and text (within buf), after unwind_check_result() said NAME. */
void unwind_name_decode(const uint8_t *buf, struct unwind_name *nm, const char **text);
#endif
