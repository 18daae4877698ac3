/* Java names from a HotSpot VM's metadata (after the capability drop, through /proc/PID/mem):
 * Method* -> ConstMethod -> ConstantPool -> Symbol, as `com.shop.Pricing.applyDiscounts`, with
 * the parameter types where the class has another method of that name. Every pointer is checked
 * (hs_method_ok) and every length bounded; fuzzed. */
#ifndef PTOP_HS_NAMES_H
#define PTOP_HS_NAMES_H
#include "hs_walk.h"
#include <stddef.h>

#define HS_NAME_MAX 512

/* 0 and the name in buf (cap >= HS_NAME_MAX), or -1 when method is no longer a method. */
int hs_method_name(const struct hs_mem *m, uint64_t method, char *buf, size_t cap);
/* 0 and in *stamp a hash (never 0) of the method's class name, name and signature as its memory
 * holds them now: the walker records it with the Method*, and the name read after the window
 * is used only when its stamp is the same (README "Java frames": a Method freed and reused). */
int hs_method_stamp(const struct hs_mem *m, uint64_t method, uint32_t *stamp);
/* hs_method_stamp, kept in m's cache (when it has one) for a Method* whose ConstMethod, pool,
 * class, class name and name (Symbol*s: one per text while in use) are the same as when it was
 * taken: 7 reads instead of 16, for the interpreted frames, whose Method*s come from the stack. */
int hs_method_stamp_kept(const struct hs_mem *m, uint64_t method, uint32_t *stamp);
/* A code blob's own name ("StubRoutines (1)", "I2C/C2I adapters"), printable ASCII only. */
int hs_blob_name(const struct hs_mem *m, uint64_t blob, char *buf, size_t cap);
/* A method descriptor "(I[Ljava/lang/String;)V" as "(int, java.lang.String[])" into buf. */
void hs_signature_text(const char *desc, size_t len, char *buf, size_t cap);
#endif
