/* JavaScript frames for ptop's stacks (user-space side of v8.bpf.c). Three phases, as pyframes.h:
 *   v8_attach()   privileged, when a target process is found: finds its node executable (or
 *                 libnode) in /proc/PID/maps, has the unprivileged helper read its v8dbg_ metadata,
 *                 checks the layout again and pushes it into the walker's `procs` map;
 *   v8_prepare()  privileged, end of window: opens /proc/PID/mem of each V8 target;
 *   v8_merge()    after the capability drop: names the section's functions through that fd and
 *                 puts them where V8's frames stand in the native stack. */
#ifndef PTOP_V8FRAMES_H
#define PTOP_V8FRAMES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct interp_handle;

void v8_attach(const struct interp_handle *h, int pid);
void v8_prepare(void);
/* Whether a section is the V8 walker's (else interp_merge's). */
bool v8_section(const void *section, size_t len);
/* native ids and their pcs, root first (pcs as the unwinder gave them: the leaf's pc, then call
 * sites, a return address less one). Each JS frame replaces the native frame with its pc (V8's code for it: the
 * interpreter's entry, baseline or optimised code, a builtin); one whose pc is not among them goes
 * just leafward of the last one placed. Where the target's perf map named the native frame, its name
 * is kept (and a disagreement with V8's counted for a note); the inlined frames follow it. Writes at most cap ids, returns the count. */
size_t v8_merge(int pid, const void *section, size_t len, const int *native, const uint64_t *pcs, size_t n, int *out,
		size_t cap);
/* Notes ("js frames: node (pid 42) not walked: …"); returns the count. */
size_t v8_notes(const char **notes, size_t cap);
#endif
