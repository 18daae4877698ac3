/* The HotSpot walker's records in an interpreter-frames section (../interp_section.h, kind
 * INTERP_HOTSPOT). Unlike CPython's, this section is written by the unwinder child, which walks
 * Java frames from the snapshot (hs_walk.h), and read by the parent after its drop (hotspot.c). */
#ifndef PTOP_HS_SECTION_H
#define PTOP_HS_SECTION_H
#include <stdbool.h>
#include <stdint.h>

struct hs_record {
	uint64_t addr;         /* Method*; HS_R_STUB: the code blob; HS_R_LOST: 0 */
	uint16_t native_index; /* which of the stack's pcs (leaf first) this frame stands for */
	uint16_t flags;        /* HS_R_* */
	union {
		uint32_t why;   /* HS_R_LOST: HS_LOST_* */
		uint32_t stamp; /* a method's: its name's hash when it was walked (hs_method_stamp), 0: unread */
	};
};

#define HS_R_INTERPRETED 1
#define HS_R_COMPILED 2
#define HS_R_INLINED 4 /* inlined into the next record (same native_index) */
#define HS_R_NATIVE 8  /* a native method's wrapper */
#define HS_R_STUB 16   /* VM code between Java frames (call stub, runtime stubs, adapters) */
#define HS_R_LOST 32   /* the walk stopped here: the frames beyond are unknown */

enum {
	HS_LOST_NO_BLOB = 1,  /* a pc in the code cache in no code blob (freed since the sample) */
	HS_LOST_FRAME,        /* a frame's layout did not check out (a sample in a prologue, a stub without a frame) */
	HS_LOST_METHOD,       /* a Method* that did not check out */
	HS_LOST_CALLER,       /* a return address at no call site of its code (code moved, or deoptimised) */
	HS_LOST_DEPTH,        /* more Java frames than a section holds */
	HS_LOST_READ,         /* the VM's memory could not be read */
	HS_LOST__COUNT
};

#define HS_MAX_RECORDS 63 /* (PTOP_INTERP_MAX - header) / 16 */
#endif
