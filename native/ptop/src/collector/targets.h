/* The operator's target list: {"targets":[{"workload":"...","namespace"?:"..."}]}, strictly
 * validated (unknown or duplicate keys, empty list, empty or "*" workload are refused).
 * One grammar with `runner targets check` (src/profiler/targets.ts): both accept exactly the same
 * files, with the same limits; test/fixtures/targets/{accept,refuse} runs through both. */
#ifndef PTOP_TARGETS_H
#define PTOP_TARGETS_H
#include <stdbool.h>
#include <stddef.h>

/* File size and entry count: the limits targets.ts enforces (MAX_TARGETS_FILE_BYTES, MAX_TARGETS). */
#define TARGETS_MAX_FILE (1024 * 1024)
#define TARGETS_MAX_ITEMS 10000
/* A workload is compared with comm and with the basename of exe / argv[0]: a file name, at most
 * NAME_MAX (255) bytes of UTF-8, never containing '/'. */
#define TARGETS_MAX_NAME 255
/* A namespace is a Kubernetes namespace: a DNS-1123 label (a-z, 0-9, '-'), at most 63 bytes. */
#define TARGETS_MAX_NAMESPACE 63

struct target {
	char *workload;
	char *ns; /* NULL: any namespace */
};

struct target_list {
	struct target *items;
	size_t n;
};

/* 0 on success; otherwise -1 with a one-line reason in err. */
int targets_parse(const char *buf, size_t len, struct target_list *out, char *err, size_t errlen);
/* Opens and reads the list with the caller's own permissions (the effective capabilities are
 * suspended meanwhile: see caps_suspend), refusing anything but a regular file. */
int targets_load(const char *path, struct target_list *out, char *err, size_t errlen);
void targets_free(struct target_list *l);

/* A DNS-1123 label (a-z, 0-9, '-' inside, at most TARGETS_MAX_NAMESPACE): what a Kubernetes
 * namespace is, in the list and in a pod's service-account namespace file alike. */
bool targets_namespace_valid(const char *s);

/* What the list allows for one workload: whether it is named at all, and if so whether any
 * namespace is allowed or only the listed ones. */
bool targets_allows(const struct target_list *l, const char *workload, const char *ns);
/* true when some entry for workload has no namespace (matches processes in any namespace). */
bool targets_any_namespace(const struct target_list *l, const char *workload);
#endif
