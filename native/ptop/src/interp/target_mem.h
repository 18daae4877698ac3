/* A target's memory for the interpreter readers (CPython, V8, HotSpot): its /proc/PID/mem opened
 * while privileged (the kernel's ptrace check is made at open), read after the capability drop
 * through one bounded reader. */
#ifndef PTOP_TARGET_MEM_H
#define PTOP_TARGET_MEM_H
#include <stddef.h>
#include <stdint.h>

/* /proc/pid/mem, read-only and close-on-exec: the descriptor, or -1. */
int target_mem_open(int pid);

/* The readers' callback: ctx points at the descriptor. len bytes at addr, all of them or -1; a
 * read over 64 KiB, or one that would pass the end of the address space, is refused. */
int target_mem_read(void *ctx, uint64_t addr, void *buf, size_t len);

#endif
