#include "proctext.h"
#include "strtab.h"
#include "targets.h"
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void proctext_comm(const char *buf, size_t len, char *out, size_t outlen)
{
	size_t n = 0;
	while (n < len && n + 1 < outlen && buf[n] != '\n' && buf[n] != 0) {
		out[n] = buf[n];
		n++;
	}
	if (outlen)
		out[n] = 0;
}

bool proctext_argv0_is(const char *buf, size_t len, const char *name)
{
	const char *nul = memchr(buf, 0, len);
	size_t end = nul ? (size_t)(nul - buf) : len;
	size_t base = end;
	while (base > 0 && buf[base - 1] != '/')
		base--;
	size_t nl = strlen(name);
	return end > 0 && end - base == nl && memcmp(buf + base, name, nl) == 0;
}

/* A positive decimal int at *p (advanced past it), or -1 (overflow, sign, no digit). */
static long decimal(const char **p, const char *end)
{
	long v = 0;
	const char *s = *p;
	while (*p < end && **p >= '0' && **p <= '9') {
		v = v * 10 + (**p - '0');
		if (v > INT_MAX)
			return -1;
		(*p)++;
	}
	return *p == s || v == 0 ? -1 : v;
}

/* The text after `key` on the first line that starts with it (*eol set to that line's end), or NULL. */
static const char *field_line(const char *buf, size_t len, const char *key, const char **eol)
{
	size_t klen = strlen(key);
	const char *end = buf + len;
	for (const char *line = buf; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		*eol = nl ? nl : end;
		if ((size_t)(*eol - line) >= klen && memcmp(line, key, klen) == 0)
			return line + klen;
		line = *eol + 1;
	}
	return NULL;
}

int proctext_nspid(const char *buf, size_t len, int fallback)
{
	const char *eol;
	const char *p = field_line(buf, len, "NSpid:", &eol);
	if (!p)
		return fallback;
	long last = -1;
	for (;;) {
		while (p < eol && (*p == ' ' || *p == '\t'))
			p++;
		if (p == eol)
			break;
		last = decimal(&p, eol);
		if (last < 0 || (p < eol && *p != ' ' && *p != '\t'))
			return fallback;
	}
	return last > 0 ? (int)last : fallback;
}

char *proctext_k8s_namespace(const char *buf, size_t len)
{
	while (len && (buf[len - 1] == ' ' || buf[len - 1] == '\t' || buf[len - 1] == '\n' || buf[len - 1] == '\r' ||
		       buf[len - 1] == '\v' || buf[len - 1] == '\f'))
		len--;
	if (len == 0 || len > TARGETS_MAX_NAMESPACE || memchr(buf, 0, len))
		return NULL;
	char *ns = xstrndup(buf, len);
	if (!targets_namespace_valid(ns)) {
		free(ns);
		return NULL;
	}
	return ns;
}

long long proctext_euid(const char *buf, size_t len)
{
	const char *eol;
	const char *p = field_line(buf, len, "Uid:", &eol);
	if (!p)
		return -1;
	long long v = -1;
	for (int field = 0; field < 2; field++) {
		while (p < eol && (*p == ' ' || *p == '\t'))
			p++;
		const char *s = p;
		v = 0;
		while (p < eol && *p >= '0' && *p <= '9') {
			v = v * 10 + (*p - '0');
			if (v > UINT32_MAX - 1) /* (uid_t)-1 is no uid */
				return -1;
			p++;
		}
		if (p == s || (p < eol && *p != ' ' && *p != '\t'))
			return -1;
	}
	return v;
}

/* Up to 16 hex digits at *p (advanced past them): 0, or -1 when there are none or too many. */
static int hex64(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	*v = 0;
	for (; *p < end; (*p)++) {
		char c = **p;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			break;
		if (*p - s == 16)
			return -1;
		*v = *v << 4 | (uint64_t)d;
	}
	return *p == s ? -1 : 0;
}

static int expect(const char **p, const char *end, char c)
{
	if (*p == end || **p != c)
		return -1;
	(*p)++;
	return 0;
}

int proctext_maps_line(const char *line, size_t len, struct maps_line *out)
{
	const char *p = line, *end = line + len;
	uint64_t maj, min;
	memset(out, 0, sizeof(*out));
	if (hex64(&p, end, &out->start) || expect(&p, end, '-') || hex64(&p, end, &out->end) || expect(&p, end, ' '))
		return -1;
	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		static const char allowed[4][3] = { "r-", "w-", "x-", "ps" };
		if (!memchr(allowed[i], p[i], 2))
			return -1;
		out->perms[i] = p[i];
	}
	p += 4;
	if (expect(&p, end, ' ') || hex64(&p, end, &out->off) || expect(&p, end, ' ') || hex64(&p, end, &maj) ||
	    expect(&p, end, ':') || hex64(&p, end, &min) || expect(&p, end, ' ') || maj > 0xfff || min > 0xfffff)
		return -1;
	out->dev_major = (unsigned)maj;
	out->dev_minor = (unsigned)min;
	const char *s = p;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (out->inode > (UINT64_MAX - 9) / 10)
			return -1;
		out->inode = out->inode * 10 + (uint64_t)(*p - '0');
	}
	if (p == s || (p < end && *p != ' ') || out->start >= out->end)
		return -1;
	while (p < end && *p == ' ')
		p++;
	if (memchr(p, '\n', (size_t)(end - p)))
		return -1; /* two lines: the caller did not split them */
	out->path = p;
	out->path_len = (size_t)(end - p);
	return 0;
}

void proctext_maps_foreach(const char *buf, size_t len, void (*fn)(const struct maps_line *l, void *arg), void *arg)
{
	const char *end = buf + len;
	for (const char *line = buf; line < end;) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		if (!eol)
			eol = end;
		struct maps_line l;
		if (proctext_maps_line(line, (size_t)(eol - line), &l) == 0)
			fn(&l, arg);
		line = eol + 1;
	}
}
