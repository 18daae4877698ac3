/* Loading the BPF object (embedded skeleton) and attaching each requested probe, or saying why not. */
#ifndef PTOP_PROBES_H
#define PTOP_PROBES_H
#include <stdbool.h>
#include <stdint.h>

enum { P_CPU = 0, P_OFFCPU = 1, P_SYSCALLS = 2, P_LOCKS = 3, P_ALLOC = 4, P__COUNT = 5 };

struct ptop_bpf;
struct bpf_link;

struct probes {
	struct ptop_bpf *skel;
	struct bpf_link *links[512];
	int nlinks;
	bool requested[P__COUNT];
	bool attached[P__COUNT];
	char reason[P__COUNT][512];
	bool locks_waitv; /* futex_waitv is covered too (its tracepoints exist: Linux 5.16+) */
};

/* Loads and attaches. Returns 0 when at least one probe is attached. */
int probes_start(struct probes *p, int mask, int frequency_hz);
int probes_add_target(struct probes *p, uint32_t tgid);
void probes_remove_target(struct probes *p, uint32_t tgid);
/* Window control: samples before start_ns and after stop are ignored in the kernel. */
void probes_begin_window(struct probes *p);
void probes_end_window(struct probes *p);
/* Sum of one stats slot over all CPUs. */
uint64_t probes_stat(struct probes *p, int slot);
void probes_destroy(struct probes *p);
const char *probe_name(int i);
/* Where tracefs is mounted (events readable), or NULL. */
const char *tracefs_path(void);
#endif
