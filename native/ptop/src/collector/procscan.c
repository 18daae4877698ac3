#include "procscan.h"
#include "proctext.h"
#include "rootfs.h"
#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Scans during which a newly seen, non-matching process is re-checked (~2 s at 250 ms). */
#define YOUNG_TICKS 8
#define K8S_NS_FILE "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

void procscan_init(struct procscan *s, const char *workload, const char *req_ns, const struct target_list *list)
{
	memset(s, 0, sizeof(*s));
	s->workload = workload;
	s->req_ns = req_ns;
	s->list = list;
	s->self_pid = getpid();
}

static const char *basename_of(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

char *proc_k8s_namespace(int pid)
{
	int root = rootfs_open_root(pid);
	if (root < 0)
		return NULL;
	int fd = rootfs_open_file(root, K8S_NS_FILE, 256);
	close(root);
	if (fd < 0)
		return NULL;
	size_t len;
	char *b = read_fd_all(fd, 255, &len);
	close(fd);
	if (!b)
		return NULL;
	char *ns = proctext_k8s_namespace(b, len);
	free(b);
	return ns;
}

int proc_nspid(int pid)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/status", pid);
	size_t len;
	char *st = read_proc_file(p, 16384, &len);
	if (!st)
		return pid;
	int nspid = proctext_nspid(st, len, pid);
	free(st);
	return nspid;
}

static bool namespace_listed(const struct target_list *l, const char *workload, const char *ns)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].ns && strcmp(l->items[i].workload, workload) == 0 && strcmp(l->items[i].ns, ns) == 0)
			return true;
	return false;
}

static bool ns_ok(struct procscan *s, const char *ns)
{
	if (s->req_ns)
		return ns && strcmp(ns, s->req_ns) == 0;
	if (targets_any_namespace(s->list, s->workload))
		return true;
	return ns && targets_allows(s->list, s->workload, ns);
}

/* comm, exe basename, argv[0] basename: any equal to the workload name. */
static bool name_matches(struct procscan *s, int pid, const char *comm, char **exe_out, bool *kthread)
{
	char p[64], link[4096];
	snprintf(p, sizeof(p), "/proc/%d/exe", pid);
	ssize_t n = readlink(p, link, sizeof(link) - 1);
	if (n <= 0) {
		*kthread = errno == ENOENT; /* kernel threads have no exe; they never exec */
		return false;
	}
	link[n] = 0;
	char *del = strstr(link, " (deleted)");
	if (del && del[10] == 0)
		*del = 0;
	bool match = strcmp(comm, s->workload) == 0 || strcmp(basename_of(link), s->workload) == 0;
	if (!match) {
		snprintf(p, sizeof(p), "/proc/%d/cmdline", pid);
		size_t len;
		char *cmd = read_proc_file(p, 4096, &len);
		if (cmd)
			match = proctext_argv0_is(cmd, len, s->workload);
		free(cmd);
	}
	if (match)
		*exe_out = xstrndup(link, strlen(link));
	return match;
}

static bool known(struct procscan *s, int pid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->procs[i].pid == pid && s->procs[i].alive)
			return true;
	return false;
}

size_t procscan_scan(struct procscan *s, void (*gone)(int pid, void *arg), void *arg)
{
	size_t first_new = s->n;
	for (size_t i = 0; i < s->n; i++) {
		if (!s->procs[i].alive)
			continue;
		char p[64];
		snprintf(p, sizeof(p), "/proc/%d/comm", s->procs[i].pid);
		if (access(p, F_OK) != 0) {
			s->procs[i].alive = false;
			if (gone)
				gone(s->procs[i].pid, arg);
		}
	}
	DIR *d = opendir("/proc");
	if (!d)
		return first_new;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		int pid = atoi(e->d_name);
		if (pid <= 0 || pid == s->self_pid || known(s, pid))
			continue;
		/* Processes already rejected cost no syscall: the key includes the /proc/PID inode, which
		 * changes when the pid is reused. A young process is re-checked for a while, because it
		 * may still exec into the workload (fork, then exec). */
		char key[64];
		snprintf(key, sizeof(key), "%d:%llu", pid, (unsigned long long)e->d_ino);
		int recheck_until = strmap_get(&s->rejected, key);
		if (recheck_until >= 0 && s->tick >= recheck_until)
			continue;
		char p[64], comm[32];
		snprintf(p, sizeof(p), "/proc/%d/comm", pid);
		size_t clen;
		char *c = read_proc_file(p, 31, &clen);
		if (!c)
			continue;
		proctext_comm(c, clen, comm, sizeof(comm));
		free(c);
		/* Processes already there at the first scan, and kernel threads, are not young. */
		int reject_until = recheck_until >= 0 ? recheck_until : s->tick == 0 ? 0 : s->tick + YOUNG_TICKS;
		char *exe = NULL;
		bool kthread = false;
		if (!name_matches(s, pid, comm, &exe, &kthread)) {
			strmap_put(&s->rejected, key, kthread ? 0 : reject_until);
			continue;
		}
		char *ns = proc_k8s_namespace(pid);
		/* The file is read while privileged and the target controls where its path leads: keep
		 * the value only when it is a namespace the operator listed, so the stream never
		 * carries the content of some other file. */
		if (ns && !(s->req_ns && strcmp(ns, s->req_ns) == 0) && !namespace_listed(s->list, s->workload, ns)) {
			free(ns);
			ns = NULL;
		}
		if (!ns_ok(s, ns)) {
			free(ns);
			free(exe);
			strmap_put(&s->rejected, key, reject_until);
			continue;
		}
		s->procs = xrealloc(s->procs, s->n + 1, sizeof(*s->procs));
		struct proc *pr = &s->procs[s->n++];
		memset(pr, 0, sizeof(*pr));
		pr->pid = pid;
		pr->nspid = proc_nspid(pid);
		proctext_comm(comm, strlen(comm), pr->comm, sizeof(pr->comm));
		pr->exe = exe;
		pr->ns = ns;
		pr->alive = true;
	}
	closedir(d);
	s->tick++;
	return first_new;
}
