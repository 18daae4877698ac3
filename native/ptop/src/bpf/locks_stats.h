/* The locks probe's own counters (bpf/ptop.h PTOP_STAT), shared by locks.bpf.c and out/locks_report.c. */
#ifndef PTOP_LOCKS_STATS_H
#define PTOP_LOCKS_STATS_H
/* futex waits that are not lock contention (locks.bpf.c): counted, not recorded */
#define STAT_LOCK_OTHER_WAITS PTOP_STAT(P_LOCKS, STAT_OWN + 0)
#define STAT_LOCK_OTHER_NS PTOP_STAT(P_LOCKS, STAT_OWN + 1)
#endif
