/* Parsers of the text ptop reads while it still holds its capabilities: /proc/PID/comm, cmdline
 * and status of every process on the host, and the Kubernetes namespace file inside a target's
 * root. Targets control most of these bytes (a process names itself, rewrites its argv, writes
 * its own namespace file), so each parser takes a buffer and its length, relies on no terminator,
 * and is fuzzed (fuzz/fuzz_proctext.c). */
#ifndef PTOP_PROCTEXT_H
#define PTOP_PROCTEXT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* comm: the task name up to the first newline or NUL, truncated to outlen - 1 bytes. */
void proctext_comm(const char *buf, size_t len, char *out, size_t outlen);
/* cmdline: whether the basename of argv[0] (up to the first NUL) is exactly name. */
bool proctext_argv0_is(const char *buf, size_t len, const char *name);
/* status: the last field of the "NSpid:" line (the pid in the innermost namespace), or fallback
 * when the line is absent or any field is not a positive decimal int. */
int proctext_nspid(const char *buf, size_t len, int fallback);
/* status: the effective uid (second field of the "Uid:" line: real, effective, saved, fs), or
 * -1 when the line is absent or that field is not a decimal uid. */
long long proctext_euid(const char *buf, size_t len);

/* One line of /proc/PID/maps, without its newline:
 *   start-end perms offset major:minor inode [spaces path]
 * The path (anything after the padding, up to the end of the line: it may hold spaces and the
 * kernel's " (deleted)") is a pointer into the line, not terminated. */
struct maps_line {
	uint64_t start, end, off, inode;
	unsigned dev_major, dev_minor;
	char perms[5];
	const char *path;
	size_t path_len;
};
/* 0 when line[0..len) is a well-formed maps line with start < end, -1 otherwise. */
int proctext_maps_line(const char *line, size_t len, struct maps_line *out);
/* Calls fn for every well-formed line of a whole maps file (malformed lines are skipped). */
void proctext_maps_foreach(const char *buf, size_t len, void (*fn)(const struct maps_line *l, void *arg), void *arg);

/* The service-account namespace file: its content without trailing whitespace, malloc'd, when it
 * is a DNS-1123 label (targets_namespace_valid); otherwise NULL. */
char *proctext_k8s_namespace(const char *buf, size_t len);
#endif
