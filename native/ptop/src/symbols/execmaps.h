/* Whether a process's executable mappings changed, without the kernel formatting its whole maps
 * text (for a target with thousands of mappings that text — a d_path per mapping — was most of
 * ptop's CPU between samples: it is asked for every target every 250 ms). */
#ifndef PTOP_EXECMAPS_H
#define PTOP_EXECMAPS_H
#include <stddef.h>
#include <stdint.h>

/* 0 and *fp: a fingerprint of pid's executable mappings (range, file offset, device, inode) read
 * with the PROCMAP_QUERY ioctl on /proc/PID/maps (Linux 6.11+). -1 when the kernel has no such
 * ioctl, or pid cannot be read: the caller reads the maps text instead. */
int execmaps_fingerprint(int pid, uint64_t *fp);

/* The same fingerprint from the maps text (kernels before 6.11): equal fingerprints, same
 * executable mappings. */
uint64_t execmaps_fingerprint_text(const char *maps, size_t len);
#endif
