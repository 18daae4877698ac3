/* Loading the BPF object (embedded skeleton) and attaching each requested probe, or saying why not;
 * what differs per probe is its descriptor's (probe_table.h). */
#ifndef PTOP_PROBES_H
#define PTOP_PROBES_H
#include "interp.h"
#include "probe_table.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ptop_bpf;
struct bpf_link;
struct bpf_program;

struct probes {
	struct ptop_bpf *skel;
	struct bpf_link *links[512];
	int nlinks;
	bool requested[P__COUNT];
	bool attached[P__COUNT];
	char reason[P__COUNT][512];
	struct interp_handle python; /* the CPython walker's maps */
	struct interp_handle v8;     /* the V8 walker's maps */
};

/* Loads and attaches. Returns 0 when at least one probe is attached. */
int probes_start(struct probes *p, int mask, int frequency_hz);
/* Whether an attached probe's samples carry stack snapshots: the unwinder is needed. */
bool probes_unwind(const struct probes *p);
int probes_add_target(struct probes *p, uint32_t tgid);
/* tgid's exec generation (0 when found, + 1 at each execve since: exec.bpf.c); 0 when not a target. */
uint32_t probes_target_gen(struct probes *p, uint32_t tgid);
void probes_remove_target(struct probes *p, uint32_t tgid);
/* Window control: samples before start_ns and after stop are ignored in the kernel. */
void probes_begin_window(struct probes *p);
void probes_end_window(struct probes *p);
/* The cpu probe keeps one in `every` of its samples (budget.h), each at random. */
void probes_set_cpu_thinning(struct probes *p, unsigned every);
/* Sum of one stats slot over all CPUs. */
uint64_t probes_stat(struct probes *p, int slot);
void probes_destroy(struct probes *p);
/* Where tracefs is mounted (events readable), or NULL. */
const char *tracefs_path(void);

/* The load and attach hooks of a probe that is only its programs (its descriptor's `programs`,
 * tracepoints attached by section name). */
bool probes_load_programs(struct probes *p, int probe, bool want);
void probes_attach_programs(struct probes *p, int probe, int frequency_hz);
/* For the probes' own attach files (collector/probes/): keeps a link to destroy at the end. */
void probes_keep_link(struct probes *p, struct bpf_link *l);
/* Attaches a and b (b may be NULL) by their section names; on failure detaches both and writes why. */
void probes_attach_tracepoints(struct probes *p, int which, struct bpf_program *a, struct bpf_program *b);
/* Whether tracefs has the tracepoint category/name. */
bool tracepoint_exists(const char *category, const char *name);
#endif
