/* The JSON Lines stream on stdout (schema: src/protocol/profile-stream.ts). */
#ifndef PTOP_OUTPUT_H
#define PTOP_OUTPUT_H
#include "symbolize.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct proc;

/* The stream's bound, by construction: a process, frame or stack record is written only while
 * everything written so far plus that record stays within PTOP_STREAM_BUDGET; the summary (under
 * 1 MiB at most: bounded notes, at most 50 locks) comes on top. So a stream never exceeds 127 MiB
 * whatever the frequency, the window or the number of CPUs, and the profile limit of everything
 * that reads one (src/protocol/profile-limits.ts, 128 MiB) holds without counting samples. Stacks
 * are offered largest first (agg.c), so what a full stream leaves out is the rarest stacks,
 * counted as lost. A test build (Makefile: unit_stream_budget) sets a tiny one. */
#ifndef PTOP_STREAM_BUDGET
#define PTOP_STREAM_BUDGET (126ull << 20)
#endif

void out_header(const char *workload, const char *ns, int probes_mask, int freq, double warmup, double duration,
		int64_t started_at_ms);
void out_probe(const char *name, bool attached, const char *reason);
void out_axis(const char *name, const char *unit, int64_t period_ns);
/* Not written (and counted) when the stream is at its budget. */
void out_process(const struct proc *p);
size_t out_processes_left_out(void);
/* Frame id for fi. Its record is written just before the first stack written with it. */
int out_frame_id(const struct frame_info *fi);
/* The function name of a frame id emitted by out_frame_id (NULL for syscall frames / unresolved). */
const char *out_frame_function(int id);
/* Its module (NULL when none; "[jit]": named by the target's perf map). */
const char *out_frame_module(int id);
/* A syscall frame (kind "syscall"). */
int out_syscall_frame_id(unsigned nr);
/* Writes the frame records the stack needs that are not yet written, then the stack; false (and
 * nothing written) when that would take the stream past PTOP_STREAM_BUDGET. */
bool out_stack(const char *axis, const int *ids, size_t n, double value, double total_ns, int pid);
/* true once the frame's record is in the stream (a summary may then refer to the id). */
bool out_frame_written(int id);
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
