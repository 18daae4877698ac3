/* Finding the processes of one workload on the host: by comm, exe basename or argv[0]
 * basename, optionally narrowed to Kubernetes namespaces. Threads come along because the BPF
 * side filters by tgid. Rescanned periodically so processes that start late are picked up. */
#ifndef PTOP_PROCSCAN_H
#define PTOP_PROCSCAN_H
#include "strtab.h"
#include "targets.h"
#include <stdbool.h>

struct proc {
	int pid;
	int nspid;
	char comm[17];
	char *exe;
	char *ns; /* NULL on a bare host (no service-account namespace file) */
	bool alive;
};

struct procscan {
	const char *workload;
	const char *req_ns;            /* --namespace, or NULL */
	const struct target_list *list;
	int self_pid;
	struct proc *procs;
	size_t n;
	struct strmap rejected; /* "pid:/proc inode" -> scan tick when first rejected */
	int tick;
};

void procscan_init(struct procscan *s, const char *workload, const char *req_ns, const struct target_list *list);
/* Scans /proc. New matches are appended to s->procs; returns the index of the first new one
 * (== old s->n when none). Processes that disappeared get alive=false and are reported through
 * gone(pid). */
size_t procscan_scan(struct procscan *s, void (*gone)(int pid, void *arg), void *arg);
/* Kubernetes namespace of pid, or NULL. Reads through /proc/PID/root with RESOLVE_IN_ROOT. */
char *proc_k8s_namespace(int pid);
int proc_nspid(int pid);
#endif
