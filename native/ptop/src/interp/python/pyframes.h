/* Python frames for ptop's stacks (user-space side of python.bpf.h). Three phases:
 *   py_attach()    privileged, when a target process is found: finds its interpreter (exe or
 *                  libpython) in /proc/PID/maps, has the unprivileged helper recognise it, and
 *                  pushes _PyRuntime's address and the version's offsets into `py_procs`;
 *   py_prepare()   privileged, end of window: opens /proc/PID/mem of each CPython target (the
 *                  kernel's access check is made at open; reading later needs no privilege);
 *   py_section_frames()  after the capability drop: reads code objects through that fd and
 *                  turns an interpreter-frames section into frame ids; interp_merge() (interp.c)
 *                  puts them into the native stack. */
#ifndef PTOP_PYFRAMES_H
#define PTOP_PYFRAMES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct probes;

void py_attach(struct probes *p, int pid);
void py_prepare(void);
/* Root-first frame ids of an interpreter-frames section of pid, with their PY_FRAME_ENTRY flags;
 * returns the count (0: none or not a section of a known CPython). A code object gone by the end
 * of the window is `[python] <code object gone>`, never another function's name. */
size_t py_section_frames(int pid, const void *section, size_t len, int *ids, uint32_t *flags, size_t cap);
/* Instrumentation notes ("python frames: unsupported version 3.7.16 …"); returns the count. */
size_t py_notes(const char **notes, size_t cap);
#endif
