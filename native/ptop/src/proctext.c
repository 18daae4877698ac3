#include "proctext.h"
#include "strtab.h"
#include "targets.h"
#include <limits.h>
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

int proctext_nspid(const char *buf, size_t len, int fallback)
{
	static const char key[] = "NSpid:";
	const char *end = buf + len;
	for (const char *line = buf; line < end;) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		if (!eol)
			eol = end;
		if ((size_t)(eol - line) >= sizeof(key) - 1 && memcmp(line, key, sizeof(key) - 1) == 0) {
			const char *p = line + sizeof(key) - 1;
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
		line = eol + 1;
	}
	return fallback;
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
