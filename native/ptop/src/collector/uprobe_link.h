/* Uprobes attached by BPF link (BPF_TRACE_UPROBE_MULTI, Linux 6.6) instead of one perf event each,
 * and the detaching of many links at once. Why: closing a uprobe perf event waits for a tracepoint
 * grace period under the kernel's event_mutex (perf_uprobe_destroy), ~0.1 s each on a loaded host,
 * one after the other whatever the threads; a multi-uprobe link is one file descriptor per process
 * and file, and its release waits outside any global lock, so links closed together share their
 * grace periods (bench/RESULTS.md, "alloc detach"). */
#ifndef PTOP_UPROBE_LINK_H
#define PTOP_UPROBE_LINK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The attach type the program must be loaded with to be attached by uprobe_link_attach. */
#define PTOP_BPF_TRACE_UPROBE_MULTI 48

/* Whether this kernel has multi-uprobe links that filter by process (the first ones, 6.6 to 6.9
 * before the fix, filtered by thread: a worker thread's allocations would be missed). */
bool uprobe_link_supported(void);
/* One link for `cnt` entry points of the file at `path` in process `pid` (cookies[i] is what
 * bpf_get_attach_cookie returns at offsets[i]). The link's fd, or -1 with errno. */
int uprobe_link_attach(int prog_fd, int pid, const char *path, const uint64_t *offsets, const uint64_t *cookies,
		       uint32_t cnt);

struct bpf_link;
/* A link to release: a libbpf link (perf-event uprobe) or a bare multi-uprobe link fd (fd >= 0). */
struct held_link {
	struct bpf_link *link;
	int fd;
};
/* Releases every link, from several threads at once, and returns when all are released. */
void held_links_release(struct held_link *links, size_t n);
#endif
