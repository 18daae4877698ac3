/* A small bounded JSON parser for exactly the target list schema. It runs while ptop is
 * privileged, so it accepts nothing beyond that schema: depth is fixed by the grammar, every
 * length is capped, and the whole file is read with a size cap. */
#include "targets.h"
#include "strtab.h"
#include "rootfs.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct parser {
	const char *start, *p, *end;
	char *err;
	size_t errlen;
	int failed;
};

static void fail(struct parser *ps, const char *fmt, ...)
{
	if (ps->failed)
		return;
	ps->failed = 1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->err, ps->errlen, fmt, ap);
	va_end(ap);
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int expect(struct parser *ps, char c)
{
	skip_ws(ps);
	if (ps->p >= ps->end || *ps->p != c) {
		fail(ps, "expected '%c' at byte %ld", c, (long)(ps->p - ps->start));
		return -1;
	}
	ps->p++;
	return 0;
}

static int peek(struct parser *ps, char c)
{
	skip_ws(ps);
	return ps->p < ps->end && *ps->p == c;
}

/* Consumes c when it is next (after whitespace). */
static int accept(struct parser *ps, char c)
{
	if (!peek(ps, c))
		return 0;
	ps->p++;
	return 1;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

/* Parses a JSON string into out (NUL-terminated, at most max bytes). Control characters and
 * NUL are refused; \u escapes are decoded to UTF-8 (surrogates refused: names are ASCII in practice). */
static int parse_string(struct parser *ps, char *out, size_t max)
{
	if (expect(ps, '"'))
		return -1;
	size_t n = 0;
	while (ps->p < ps->end && *ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p++;
		unsigned cp = c;
		if (c < 0x20) {
			fail(ps, "control character in string");
			return -1;
		}
		if (c == '\\') {
			if (ps->p >= ps->end)
				break;
			char e = *ps->p++;
			switch (e) {
			case '"': cp = '"'; break;
			case '\\': cp = '\\'; break;
			case '/': cp = '/'; break;
			case 'b': cp = '\b'; break;
			case 'f': cp = '\f'; break;
			case 'n': cp = '\n'; break;
			case 'r': cp = '\r'; break;
			case 't': cp = '\t'; break;
			case 'u': {
				if (ps->end - ps->p < 4) {
					fail(ps, "truncated \\u escape");
					return -1;
				}
				cp = 0;
				for (int i = 0; i < 4; i++) {
					int h = hexval(ps->p[i]);
					if (h < 0) {
						fail(ps, "bad \\u escape");
						return -1;
					}
					cp = cp * 16 + (unsigned)h;
				}
				ps->p += 4;
				if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff)) {
					fail(ps, "\\u0000 or surrogate escape refused");
					return -1;
				}
				break;
			}
			default:
				fail(ps, "bad escape \\%c", e);
				return -1;
			}
			if (cp < 0x20) {
				fail(ps, "control character in string");
				return -1;
			}
		}
		/* Encode cp (raw bytes >= 0x80 pass through unchanged). */
		unsigned char buf[3];
		size_t k = 0;
		if (c != '\\' || cp < 0x80) {
			buf[k++] = (unsigned char)cp;
		} else if (cp < 0x800) {
			buf[k++] = 0xc0 | (cp >> 6);
			buf[k++] = 0x80 | (cp & 0x3f);
		} else {
			buf[k++] = 0xe0 | (cp >> 12);
			buf[k++] = 0x80 | ((cp >> 6) & 0x3f);
			buf[k++] = 0x80 | (cp & 0x3f);
		}
		if (n + k > max) {
			fail(ps, "string longer than %zu bytes", max);
			return -1;
		}
		memcpy(out + n, buf, k);
		n += k;
	}
	if (ps->p >= ps->end) {
		fail(ps, "unterminated string");
		return -1;
	}
	ps->p++;
	out[n] = 0;
	return 0;
}

static int parse_target(struct parser *ps, struct target *t, size_t index)
{
	char key[32], val[TARGETS_MAX_STR + 1];
	int have_workload = 0, have_ns = 0;
	if (expect(ps, '{'))
		return -1;
	if (!peek(ps, '}')) {
		for (;;) {
			skip_ws(ps);
			if (ps->p < ps->end && *ps->p == '"') {
				/* Keys longer than any known key are unknown keys: report them as such. */
				const char *save = ps->p;
				if (parse_string(ps, key, sizeof(key) - 1)) {
					ps->failed = 0;
					ps->p = save;
					fail(ps, "targets[%zu]: unknown key", index);
					return -1;
				}
			} else {
				fail(ps, "targets[%zu]: expected a key", index);
				return -1;
			}
			if (expect(ps, ':'))
				return -1;
			int is_w = strcmp(key, "workload") == 0, is_n = strcmp(key, "namespace") == 0;
			if (!is_w && !is_n) {
				fail(ps, "targets[%zu]: unknown key \"%s\" (allowed: workload, namespace)", index, key);
				return -1;
			}
			if ((is_w && have_workload) || (is_n && have_ns)) {
				fail(ps, "targets[%zu]: duplicate key \"%s\"", index, key);
				return -1;
			}
			if (!peek(ps, '"')) {
				fail(ps, "targets[%zu].%s must be a string", index, key);
				return -1;
			}
			if (parse_string(ps, val, TARGETS_MAX_STR))
				return -1;
			if (is_w) {
				have_workload = 1;
				if (!val[0]) {
					fail(ps, "targets[%zu].workload is empty", index);
					return -1;
				}
				if (strcmp(val, "*") == 0) {
					fail(ps, "targets[%zu].workload \"*\" is refused: list each workload by name", index);
					return -1;
				}
				if (strchr(val, '/')) {
					fail(ps, "targets[%zu].workload must be a process name, not a path", index);
					return -1;
				}
				t->workload = xstrndup(val, strlen(val));
			} else {
				have_ns = 1;
				if (!val[0]) {
					fail(ps, "targets[%zu].namespace is empty", index);
					return -1;
				}
				t->ns = xstrndup(val, strlen(val));
			}
			if (!accept(ps, ','))
				break;
		}
	}
	if (expect(ps, '}'))
		return -1;
	if (!have_workload) {
		fail(ps, "targets[%zu]: workload is required", index);
		return -1;
	}
	return 0;
}

int targets_parse(const char *buf, size_t len, struct target_list *out, char *err, size_t errlen)
{
	struct parser ps = { .start = buf, .p = buf, .end = buf + len, .err = err, .errlen = errlen };
	char key[32];
	int have_targets = 0;
	memset(out, 0, sizeof(*out));
	if (len > TARGETS_MAX_FILE) {
		fail(&ps, "target list larger than %d bytes", TARGETS_MAX_FILE);
		return -1;
	}
	if (memchr(buf, 0, len)) {
		fail(&ps, "NUL byte in target list");
		return -1;
	}
	if (expect(&ps, '{'))
		goto bad;
	if (!peek(&ps, '}')) {
		for (;;) {
			if (!peek(&ps, '"')) {
				fail(&ps, "expected a key");
				goto bad;
			}
			const char *save = ps.p;
			if (parse_string(&ps, key, sizeof(key) - 1)) {
				ps.failed = 0;
				ps.p = save;
				fail(&ps, "unknown key (allowed: targets)");
				goto bad;
			}
			if (strcmp(key, "targets") != 0) {
				fail(&ps, "unknown key \"%s\" (allowed: targets)", key);
				goto bad;
			}
			if (have_targets) {
				fail(&ps, "duplicate key \"targets\"");
				goto bad;
			}
			have_targets = 1;
			if (expect(&ps, ':') || expect(&ps, '['))
				goto bad;
			if (!peek(&ps, ']')) {
				for (;;) {
					if (out->n >= TARGETS_MAX_ITEMS) {
						fail(&ps, "more than %d targets", TARGETS_MAX_ITEMS);
						goto bad;
					}
					out->items = xrealloc(out->items, out->n + 1, sizeof(*out->items));
					memset(&out->items[out->n], 0, sizeof(out->items[0]));
					out->n++;
					if (parse_target(&ps, &out->items[out->n - 1], out->n - 1))
						goto bad;
					if (!accept(&ps, ','))
						break;
				}
			}
			if (expect(&ps, ']'))
				goto bad;
			if (!accept(&ps, ','))
				break;
		}
	}
	if (expect(&ps, '}'))
		goto bad;
	skip_ws(&ps);
	if (ps.p != ps.end) {
		fail(&ps, "trailing content after the JSON object");
		goto bad;
	}
	if (!have_targets) {
		fail(&ps, "\"targets\" is required");
		goto bad;
	}
	if (out->n == 0) {
		fail(&ps, "\"targets\" is empty: list at least one workload");
		goto bad;
	}
	return 0;
bad:
	if (!ps.failed)
		fail(&ps, "invalid target list");
	targets_free(out);
	return -1;
}

int targets_load(const char *path, struct target_list *out, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == ELOOP)
		fd = open(path, O_RDONLY | O_CLOEXEC); /* mounted lists are often symlinks (k8s ConfigMap) */
	if (fd < 0) {
		snprintf(err, errlen, "cannot open target list %s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "target list %s is not a regular file", path);
		close(fd);
		return -1;
	}
	if (st.st_size > TARGETS_MAX_FILE) {
		snprintf(err, errlen, "target list %s is larger than %d bytes", path, TARGETS_MAX_FILE);
		close(fd);
		return -1;
	}
	size_t len = 0;
	char *buf = read_fd_all(fd, TARGETS_MAX_FILE + 1, &len); /* one byte over the cap tells "too large" */
	if (!buf) {
		snprintf(err, errlen, "cannot read target list %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (len > TARGETS_MAX_FILE) {
		snprintf(err, errlen, "target list %s is larger than %d bytes", path, TARGETS_MAX_FILE);
		free(buf);
		close(fd);
		return -1;
	}
	close(fd);
	char perr[200];
	int rc = targets_parse(buf, len, out, perr, sizeof(perr));
	if (rc)
		snprintf(err, errlen, "invalid target list %s: %s", path, perr);
	free(buf);
	return rc;
}

void targets_free(struct target_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].workload);
		free(l->items[i].ns);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

bool targets_allows(const struct target_list *l, const char *workload, const char *ns)
{
	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->items[i].workload, workload) != 0)
			continue;
		if (!ns || !l->items[i].ns || strcmp(l->items[i].ns, ns) == 0)
			return true;
	}
	return false;
}

bool targets_any_namespace(const struct target_list *l, const char *workload)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i].workload, workload) == 0 && !l->items[i].ns)
			return true;
	return false;
}
