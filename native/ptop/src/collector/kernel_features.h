/* features.c's interface (not "features.h": that name is glibc's, and -Isrc would shadow it). */
#ifndef PTOP_KERNEL_FEATURES_H
#define PTOP_KERNEL_FEATURES_H
#include <stddef.h>

/* 0 when this kernel has every feature ptop's BPF object needs (native/ptop/README.md, "Kernels"),
 * msg then saying so (and whether the helpers could be probed); otherwise -1 and msg names the first
 * missing feature, the kernel that brought it and the cost. */
int features_check(char *msg, size_t len);
#endif
