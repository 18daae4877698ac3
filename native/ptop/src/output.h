/* The JSON Lines stream on stdout (schema: src/protocol/profile-stream.ts). */
#ifndef PTOP_OUTPUT_H
#define PTOP_OUTPUT_H
#include "symbolize.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct proc;

void out_header(const char *workload, const char *ns, int probes_mask, int freq, double warmup, double duration,
		int64_t started_at_ms);
void out_probe(const char *name, bool attached, const char *reason);
void out_axis(const char *name, const char *unit, int64_t period_ns);
void out_process(const struct proc *p);
/* Frame id for fi, emitting its frame record the first time it is seen. */
int out_frame_id(const struct frame_info *fi);
/* The function name of a frame id emitted by out_frame_id (NULL for syscall frames / unresolved). */
const char *out_frame_function(int id);
/* A syscall frame (kind "syscall"). */
int out_syscall_frame_id(unsigned nr);
void out_stack(const char *axis, const int *ids, size_t n, double value, double total_ns, int pid);
/* incomplete (may be NULL): per axis, the value in stacks that did not reach their root.
 * extra_json (may be NULL): further members, written as given (",\"locks\":[…]"). */
void out_summary(const char *const *axes, const double *samples, const double *lost, const double *incomplete,
		 size_t naxes, bool partial,
		 const char *partial_reason, int64_t ended_at_ms, double measured_sec, const char *const *notes,
		 size_t nnotes, const char *extra_json);
/* An axis counted exactly while its stacks are sampled (alloc: every byte): the summary's `totals`. */
void out_summary_total(const char *axis, double value);
/* An attached probe whose program never ran (probe_ran.h): summary.not_fired[axis] = reason. */
void out_summary_not_fired(const char *axis, const char *reason);
void out_flush(void);
#endif
