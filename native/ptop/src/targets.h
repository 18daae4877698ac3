/* The operator's target list: {"targets":[{"workload":"...","namespace"?:"..."}]}, strictly
 * validated (unknown or duplicate keys, empty list, empty or "*" workload are refused). */
#ifndef PTOP_TARGETS_H
#define PTOP_TARGETS_H
#include <stdbool.h>
#include <stddef.h>

#define TARGETS_MAX_FILE (256 * 1024)
#define TARGETS_MAX_ITEMS 1024
#define TARGETS_MAX_STR 253

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
int targets_load(const char *path, struct target_list *out, char *err, size_t errlen);
void targets_free(struct target_list *l);

/* What the list allows for one workload: whether it is named at all, and if so whether any
 * namespace is allowed or only the listed ones. */
bool targets_allows(const struct target_list *l, const char *workload, const char *ns);
/* true when some entry for workload has no namespace (matches processes in any namespace). */
bool targets_any_namespace(const struct target_list *l, const char *workload);
#endif
