/* Names as people read them: C++ and Rust symbols through the C++ ABI's demangler (libstdc++),
 * with the Rust legacy hash suffix dropped so the identity survives a rebuild. */
#include "demangle.h"
#include "strtab.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* Rust legacy symbols end in "::h" + 16 hex digits: a hash of the crate's build, different in
 * every version of the program, so it would make every function "new" in a diff. */
static bool strip_rust_hash(char *s)
{
	size_t n = strlen(s);
	if (n < 19 || memcmp(s + n - 19, "::h", 3) != 0)
		return false;
	for (size_t i = n - 16; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	s[n - 19] = 0;
	return true;
}

/* Rust legacy mangling escapes what C++ identifiers cannot hold: "$LT$" is '<', "$u7b$" is '{',
 * ".." is "::". Decoded in place (the result is never longer). */
static void rust_unescape(char *s)
{
	static const struct {
		const char *from;
		char to;
	} esc[] = { { "$SP$", '@' }, { "$BP$", '*' }, { "$RF$", '&' }, { "$LT$", '<' }, { "$GT$", '>' },
		    { "$LP$", '(' }, { "$RP$", ')' }, { "$C$", ',' },   { "$u20$", ' ' }, { "$u27$", '\'' },
		    { "$u5b$", '[' }, { "$u5d$", ']' }, { "$u7b$", '{' }, { "$u7d$", '}' }, { "$u7e$", '~' },
		    { "$u3b$", ';' }, { "$u2b$", '+' }, { "$u22$", '"' } };
	char *w = s;
	for (const char *r = s; *r;) {
		bool done = false;
		if (*r == '$')
			for (size_t i = 0; i < sizeof(esc) / sizeof(esc[0]); i++) {
				size_t l = strlen(esc[i].from);
				if (strncmp(r, esc[i].from, l) == 0) {
					*w++ = esc[i].to;
					r += l;
					done = true;
					break;
				}
			}
		if (!done && r[0] == '.' && r[1] == '.') {
			*w++ = ':';
			*w++ = ':';
			r += 2;
			done = true;
		}
		if (!done)
			*w++ = *r++;
	}
	*w = 0;
}

const char *demangle(const char *sym)
{
	if (!sym || strncmp(sym, "_Z", 2) != 0 || strlen(sym) > DEMANGLE_MAX_INPUT)
		return sym;
	int status = -1;
	char *d = __cxa_demangle(sym, NULL, NULL, &status);
	if (status != 0 || !d)
		return sym;
	if (strip_rust_hash(d))
		rust_unescape(d);
	return d; /* interned by the caller's frame table for the life of ptop */
}
