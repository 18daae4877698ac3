/* Stack deltas: a module's unwind rules compiled into rows (README: "Sample record and unwinding
 * design", "Stack deltas"). A row says, for one range of pcs, where the caller's frame is: the
 * CFA is sp or fp plus an offset, the return address and the frame pointer are saved at the CFA
 * plus an offset (or kept, or undefined). Rows are compiled from the module's CFI by libdw, the
 * way libdwfl's own unwinder reads it (.eh_frame first, then .debug_frame), the first time a pc in
 * their range is unwound, and kept in the module for every later sample: what libdwfl would
 * interpret again for every frame of every sample. A rule a row cannot say (a DWARF expression, a
 * CFA on another register, a signal frame) compiles to DELTA_FALLBACK: the sample is then unwound
 * by libdwfl, as before. A pc no CFI holds compiles to DELTA_NO_CFI: the walk takes libdwfl's
 * frame-pointer step there. Parses a target's files: runs in the unwinder child only. */
#ifndef PTOP_DELTA_TABLE_H
#define PTOP_DELTA_TABLE_H
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

enum delta_loc {
	DELTA_UNDEFINED, /* the register has no value in the caller (for the return address: the root) */
	DELTA_SAME,      /* the caller's value is this frame's */
	DELTA_AT_CFA,    /* saved in memory at CFA + off */
	DELTA_IS_CFA,    /* the value CFA + off itself */
	DELTA_FALLBACK,  /* anything else: libdwfl unwinds the sample */
	DELTA_NO_CFI,    /* (.ra only) no CFI holds the pc: libdwfl's frame-pointer step */
};

enum delta_cfa_base { DELTA_CFA_SP, DELTA_CFA_FP };

struct delta_rule {
	uint8_t cfa_base; /* enum delta_cfa_base */
	uint8_t ra, fp, sp; /* enum delta_loc of the return address, the frame pointer, sp */
	int32_t cfa_off, ra_off, fp_off, sp_off;
};

/* The rule of a Dwarf_Frame (libdw's rule state at one pc), as a row can hold it. */
struct delta_rule delta_rule_of(Dwarf_Frame *frame);

/* The rule for pc (a process address) in mod, compiled on the first lookup in its row's range.
 * DELTA_FALLBACK in .ra when a row cannot say it, DELTA_NO_CFI when there is none. */
struct delta_rule delta_lookup(Dwfl_Module *mod, uint64_t pc);

/* Frees the rows of every module of dwfl (before dwfl_end). */
void delta_release(Dwfl *dwfl);
#endif
