/* Turning (pid, address) into frames. Two phases, split by the capability drop:
 *   sym_prepare_process()  privileged: reads /proc/PID/maps (kernel text), opens every mapped
 *                          executable file and the perf map through /proc/PID/root, keeps fds;
 *   sym_resolve_*()        unprivileged: parses ELF and perf-map bytes from those fds. */
#ifndef PTOP_SYMBOLIZE_H
#define PTOP_SYMBOLIZE_H
#include <stdbool.h>
#include <stdint.h>

struct frame_info {
	const char *function; /* NULL: unresolved */
	const char *module;
	const char *build_id; /* NULL or hex */
	const char *kind;     /* "native" | "jit" | "kernel" | "python" | "unknown" */
	int line;             /* python: first line of the function (0 = none) */
	uint64_t address;     /* module-relative vaddr for native, raw otherwise */
};

/* Where a process's exec generation comes from (bpf/ptop.h: the targets map's value; 0 for a
 * process not yet a target). Without one, every process has one image, generation 0. */
void sym_gen_source(uint32_t (*gen_of)(int pid, void *arg), void *arg);
/* Reads pid's executable mappings, as the image of its exec generation (*gen: which one), and
 * opens their files (again: new files only). true when the executable mappings differ from that
 * image's before. */
bool sym_prepare_process(int pid, int nspid, uint32_t *gen);
/* The same for a rescan: nothing is done (no file opened, no comparison) when pid's executable
 * mappings are the ones of the previous call (a fingerprint of those lines of its maps) and its
 * generation is the same. */
bool sym_refresh_process(int pid, int nspid, uint32_t *gen);
/* Opens /proc/kallsyms while privileged (addresses are shown according to the opener). */
void sym_prepare_kernel(void);
/* Calls fn for each executable mapping of pid's image of generation gen with the file opened for it (-1: anonymous or not
 * openable; [vdso]: ptop's own image, vdso.h, and vdso true). The fd stays owned by symbolize.c
 * (vdso.c). */
void sym_foreach_mapping(int pid, uint32_t gen,
			 void (*fn)(int pid, uint64_t start, uint64_t end, uint64_t off, int fd, bool vdso, void *arg),
			 void *arg);
/* 1 when addr is inside an executable mapping of the image of pid that names a sample of
 * generation gen (gen_pick.h), 0 when not, -1 when pid's mappings are unknown. */
int sym_in_mapping(int pid, uint32_t gen, uint64_t addr);
/* addr of a sample of generation gen, named from that image (gen_pick.h). */
void sym_resolve_user(int pid, uint32_t gen, uint64_t addr, struct frame_info *out);
void sym_resolve_kernel(uint64_t addr, struct frame_info *out);
/* true when kernel addresses were hidden by kptr_restrict (kernel frames unsymbolized). */
bool sym_kernel_hidden(void);
#endif
