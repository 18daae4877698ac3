/* Java frames in the unwinder child (README "Java frames"): per JVM process, the VM's layout read
 * through the /proc/PID/mem descriptor and the libjvm.so file the parent passed (MSG_JVM_*), and
 * the walk of a snapshot's Java frames between native ones. Unprivileged: everything here parses
 * what the target controls. */
#ifndef PTOP_HS_CHILD_H
#define PTOP_HS_CHILD_H
#include "hs_walk.h"
#include <stddef.h>

struct hs_proc;

/* The Java frames one snapshot gave: its section's records. */
struct hs_walk_out {
	struct hs_record rec[HS_MAX_RECORDS];
	size_t n;
};

/* MSG_JVM_LIB (fd: libjvm.so, mapped at start from file offset off) or MSG_JVM_MEM (fd:
 * /proc/PID/mem); takes the descriptor. */
void hs_child_lib(int pid, int fd, uint64_t start, uint64_t off);
void hs_child_mem(int pid, int fd);
/* A fresh state for pid (it exited, or the pid was reused). */
void hs_child_forget(int pid);
void hs_child_reset(void);
/* The JVM of pid, NULL when pid is none (or one not supported). */
struct hs_proc *hs_child_proc(int pid);
bool hs_child_in_code(const struct hs_proc *p, uint64_t pc);
/* Java frames from *r (a pc in the code cache) until native code: each physical frame's pc goes to
 * pcs (leaf first, as the native unwinder writes them; a return address as its call site, pc - 1),
 * its methods to out; sample_ns: when the sample was taken (CLOCK_MONOTONIC). true: native unwinding resumes at *r; false: the walk stopped (a HS_R_LOST
 * record says why) or the pcs are full. */
bool hs_child_walk(struct hs_proc *p, struct hs_regs *r, bool leaf, uint64_t sample_ns, uint64_t *pcs, uint32_t *npcs,
		   uint32_t cap, hs_stack_fn st, void *st_ctx, struct hs_walk_out *out);
/* Every method named during the window (hs_namecache.h), for the parent. */
typedef void (*hs_child_name_fn)(int pid, uint64_t method, uint32_t stamp, const char *name, size_t len, void *arg);
void hs_child_names(hs_child_name_fn fn, void *arg);
/* The section for out (interp_section.h header, then its records) at buf; its length, 0 when empty. */
size_t hs_child_section(const struct hs_walk_out *out, uint8_t *buf, size_t cap);
#endif
