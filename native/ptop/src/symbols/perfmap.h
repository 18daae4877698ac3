/* perf-map files (/tmp/perf-PID.map) written by JIT runtimes: "START SIZE NAME" per line, hex.
 * Target-controlled bytes: parsed unprivileged, with line, entry and size caps. */
#ifndef PTOP_PERFMAP_H
#define PTOP_PERFMAP_H
#include <stddef.h>
#include <stdint.h>

#define PERFMAP_MAX_BYTES (128u << 20)
#define PERFMAP_MAX_ENTRIES (2u << 20)
#define PERFMAP_MAX_LINE 4096

struct perfmap_entry {
	uint64_t start, size;
	uint32_t name, seq; /* name: offset into names; seq: line order (later lines win) */
};

struct perfmap {
	struct perfmap_entry *e;
	size_t n;
	char *names;
	size_t names_len;
};

/* Parses buf[0..len); malformed lines are skipped. Returns the number of entries. */
size_t perfmap_parse(const char *buf, size_t len, struct perfmap *out);
const char *perfmap_lookup(const struct perfmap *m, uint64_t addr);
void perfmap_free(struct perfmap *m);
#endif
