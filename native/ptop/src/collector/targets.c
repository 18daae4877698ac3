/* A small bounded JSON parser for exactly the target list schema. It runs while ptop is
 * privileged, so it accepts nothing beyond that schema: depth is fixed by the grammar and every
 * length is capped. The file itself is opened and read in targets_file.c. */
#include "targets.h"
#include "strtab.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Four hex digits after "\u" at ps->p; -1 when they are not there. */
static long hex4(struct parser *ps)
{
	if (ps->end - ps->p < 4)
		return -1;
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(ps->p[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	ps->p += 4;
	return v;
}

static size_t utf8_encode(unsigned cp, unsigned char *b)
{
	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		b[0] = 0xc0 | (cp >> 6);
		b[1] = 0x80 | (cp & 0x3f);
		return 2;
	}
	if (cp < 0x10000) {
		b[0] = 0xe0 | (cp >> 12);
		b[1] = 0x80 | ((cp >> 6) & 0x3f);
		b[2] = 0x80 | (cp & 0x3f);
		return 3;
	}
	b[0] = 0xf0 | (cp >> 18);
	b[1] = 0x80 | ((cp >> 12) & 0x3f);
	b[2] = 0x80 | ((cp >> 6) & 0x3f);
	b[3] = 0x80 | (cp & 0x3f);
	return 4;
}

/* Parses a JSON string into out (NUL-terminated, at most max bytes of UTF-8). The file is valid
 * UTF-8 (checked up front), so raw bytes >= 0x80 are copied; \u escapes are decoded, surrogate
 * pairs included. What a name may not contain (NUL and other controls, a lone surrogate) is refused
 * here for keys and values alike: a key holding one can only be an unknown key anyway. */
static int parse_string(struct parser *ps, char *out, size_t max)
{
	if (expect(ps, '"'))
		return -1;
	size_t n = 0;
	while (ps->p < ps->end && *ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p++;
		unsigned char buf[4];
		size_t k;
		if (c < 0x20) {
			fail(ps, "control character in string");
			return -1;
		}
		if (c != '\\') {
			buf[0] = c;
			k = 1;
		} else {
			if (ps->p >= ps->end)
				break;
			char e = *ps->p++;
			unsigned cp;
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
				long v = hex4(ps);
				if (v < 0) {
					fail(ps, "bad \\u escape");
					return -1;
				}
				cp = (unsigned)v;
				if (cp >= 0xd800 && cp <= 0xdbff && ps->end - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u') {
					const char *save = ps->p;
					ps->p += 2;
					long lo = hex4(ps);
					if (lo >= 0xdc00 && lo <= 0xdfff)
						cp = 0x10000 + ((cp - 0xd800) << 10) + ((unsigned)lo - 0xdc00);
					else
						ps->p = save;
				}
				if (cp >= 0xd800 && cp <= 0xdfff) {
					fail(ps, "unpaired UTF-16 surrogate escape");
					return -1;
				}
				break;
			}
			default:
				fail(ps, "bad escape");
				return -1;
			}
			k = utf8_encode(cp, buf);
		}
		if (buf[0] < 0x20 || buf[0] == 0x7f) {
			fail(ps, "control character in string");
			return -1;
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

/* Decodes the UTF-8 sequence at s (valid: checked up front); returns its length. */
static size_t utf8_decode(const unsigned char *s, unsigned *cp)
{
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] < 0xe0) {
		*cp = ((s[0] & 0x1fu) << 6) | (s[1] & 0x3fu);
		return 2;
	}
	if (s[0] < 0xf0) {
		*cp = ((s[0] & 0x0fu) << 12) | ((s[1] & 0x3fu) << 6) | (s[2] & 0x3fu);
		return 3;
	}
	*cp = ((s[0] & 0x07u) << 18) | ((s[1] & 0x3fu) << 12) | ((s[2] & 0x3fu) << 6) | (s[3] & 0x3fu);
	return 4;
}

/* What JavaScript's String.prototype.trim removes (ECMAScript WhiteSpace and LineTerminator):
 * targets.ts refuses a name with any of these at either end, so this parser does too. */
static bool js_whitespace(unsigned cp)
{
	return (cp >= 0x09 && cp <= 0x0d) || cp == 0x20 || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) ||
	       cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000 || cp == 0xfeff;
}

static bool edge_whitespace(const char *s)
{
	const unsigned char *u = (const unsigned char *)s, *last = u;
	unsigned cp, first_cp;
	size_t len = strlen(s);
	if (!len)
		return false;
	utf8_decode(u, &first_cp);
	for (const unsigned char *q = u; q < u + len; q += utf8_decode(q, &cp))
		last = q;
	utf8_decode(last, &cp);
	return js_whitespace(first_cp) || js_whitespace(cp);
}

bool targets_namespace_valid(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > TARGETS_MAX_NAMESPACE)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return s[0] != '-' && s[n - 1] != '-';
}

/* Offset of the first byte that does not start a valid UTF-8 sequence (overlong forms, surrogates
 * and code points past U+10FFFF included), or -1: the same check as targets.ts firstInvalidUtf8. */
static long first_invalid_utf8(const unsigned char *b, size_t len)
{
	size_t i = 0;
	while (i < len) {
		unsigned c = b[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t need;
		unsigned min;
		if (c >= 0xc2 && c <= 0xdf)
			need = 1, min = 0x80;
		else if (c >= 0xe0 && c <= 0xef)
			need = 2, min = 0x800;
		else if (c >= 0xf0 && c <= 0xf4)
			need = 3, min = 0x10000;
		else
			return (long)i;
		if (i + need >= len)
			return (long)i;
		unsigned cp = c & (0x3fu >> need);
		for (size_t k = 1; k <= need; k++) {
			if ((b[i + k] & 0xc0) != 0x80)
				return (long)i;
			cp = (cp << 6) | (b[i + k] & 0x3fu);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return (long)i;
		i += need + 1;
	}
	return -1;
}

/* The rules a workload or namespace value must follow beyond being a string (targets.ts nameProblem). */
static int check_name(struct parser *ps, size_t index, bool workload, const char *val)
{
	const char *what = workload ? "workload" : "namespace";
	if (!val[0]) {
		fail(ps, "targets[%zu].%s is empty", index, what);
		return -1;
	}
	if (edge_whitespace(val)) {
		fail(ps, "targets[%zu].%s has leading or trailing whitespace", index, what);
		return -1;
	}
	if (workload && strcmp(val, "*") == 0) {
		fail(ps, "targets[%zu].workload \"*\" is refused: list each workload by name", index);
		return -1;
	}
	if (workload && strchr(val, '/')) {
		fail(ps, "targets[%zu].workload must be a process name, not a path", index);
		return -1;
	}
	if (!workload && !targets_namespace_valid(val)) {
		fail(ps, "targets[%zu].namespace is not a Kubernetes namespace name (a-z, 0-9, '-', at most %d)", index,
		     TARGETS_MAX_NAMESPACE);
		return -1;
	}
	return 0;
}

static int parse_target(struct parser *ps, struct target *t, size_t index)
{
	char key[32], val[TARGETS_MAX_NAME + 1];
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
			if (parse_string(ps, val, TARGETS_MAX_NAME))
				return -1;
			if (check_name(ps, index, is_w, val))
				return -1;
			if (is_w) {
				have_workload = 1;
				t->workload = xstrndup(val, strlen(val));
			} else {
				have_ns = 1;
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
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
		fail(&ps, "the file starts with a byte-order mark (BOM); save it as UTF-8 without BOM");
		return -1;
	}
	long bad = first_invalid_utf8((const unsigned char *)buf, len);
	if (bad >= 0) {
		fail(&ps, "not valid UTF-8 (first bad byte at offset %ld)", bad);
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
