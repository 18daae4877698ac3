/* The alloc probe's own counters (bpf/ptop.h PTOP_STAT), shared by alloc.bpf.c and user space
 * (probe_table.c, out/alloc_report.c). */
#ifndef PTOP_ALLOC_STATS_H
#define PTOP_ALLOC_STATS_H
#define STAT_ALLOC_BYTES PTOP_STAT(P_ALLOC, STAT_OWN + 0)      /* every byte requested, counted exactly */
#define STAT_ALLOC_CALLS PTOP_STAT(P_ALLOC, STAT_OWN + 1)      /* every allocation call, counted exactly */
/* inner calls of one request (e.g. musl calloc -> malloc), not counted twice */
#define STAT_ALLOC_FORWARDED PTOP_STAT(P_ALLOC, STAT_OWN + 2)
#define STAT_ALLOC_LOST_BYTES PTOP_STAT(P_ALLOC, STAT_OWN + 3) /* bytes credited to samples that were lost */
#endif
