#include "pycode.h"
#include <string.h>

static int read_u64(py_read_fn rd, void *ctx, uint64_t addr, uint64_t *v)
{
	return rd(ctx, addr, v, sizeof(*v));
}

static size_t put_utf8(char *out, size_t cap, size_t at, uint32_t cp)
{
	unsigned char b[4];
	size_t n;
	if (cp >= 0xd800 && cp <= 0xdfff)
		cp = 0xfffd; /* lone surrogates (surrogateescape'd file names) are not UTF-8 */
	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else if (cp <= 0x10ffff) {
		b[0] = (unsigned char)(0xf0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	} else {
		return (size_t)-1;
	}
	if (at + n >= cap)
		return (size_t)-1;
	memcpy(out + at, b, n);
	return at + n;
}

int py_str_read(const struct py_version_offsets *o, const struct py_types *t, py_read_fn rd, void *ctx,
		uint64_t str, char *out, size_t cap)
{
	if (!str || cap < 2)
		return -1;
	/* cpython/unicodeobject.h PyASCIIObject: ob_refcnt, ob_type, length, hash, state; the
	 * characters of a compact string follow the (ASCII or compact) header. */
	unsigned char hdr[128];
	if (o->unicode_compact_size > (int32_t)sizeof(hdr) || rd(ctx, str, hdr, (size_t)o->unicode_compact_size))
		return -1;
	uint64_t type, length;
	uint32_t state;
	memcpy(&type, hdr + o->object_type, 8);
	memcpy(&length, hdr + o->unicode_length, 8);
	memcpy(&state, hdr + o->unicode_state, 4);
	if (t->unicode_type && type != t->unicode_type)
		return -1;
	/* state bit-fields (unicodeobject.h, 3.8-3.13): interned:2, kind:3, compact:1, ascii:1 */
	unsigned kind = (state >> 2) & 7, compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
	if (!compact || (kind != 1 && kind != 2 && kind != 4) || (ascii && kind != 1))
		return -1;
	if (length > 4 * (uint64_t)cap)
		length = 4 * (uint64_t)cap; /* longer names are cut, never read whole */
	uint64_t data = str + (uint64_t)(ascii ? o->unicode_ascii_size : o->unicode_compact_size);
	unsigned char chunk[256];
	size_t at = 0;
	for (uint64_t i = 0; i < length;) {
		size_t want = (size_t)((length - i) * kind);
		if (want > sizeof(chunk))
			want = sizeof(chunk) / kind * kind;
		if (rd(ctx, data + i * kind, chunk, want))
			return -1;
		for (size_t j = 0; j < want; j += kind, i++) {
			uint32_t cp;
			if (kind == 1)
				cp = chunk[j];
			else if (kind == 2)
				cp = (uint32_t)chunk[j] | (uint32_t)chunk[j + 1] << 8;
			else
				cp = (uint32_t)chunk[j] | (uint32_t)chunk[j + 1] << 8 | (uint32_t)chunk[j + 2] << 16 |
				     (uint32_t)chunk[j + 3] << 24;
			if (ascii && cp >= 0x80)
				return -1;
			if (cp < 0x20 || cp == 0x7f)
				cp = 0xfffd; /* control characters have no place in a name */
			size_t next = put_utf8(out, cap, at, cp);
			if (next == (size_t)-1) {
				out[at] = 0; /* cut at a character boundary */
				return 0;
			}
			at = next;
		}
	}
	out[at] = 0;
	return 0;
}

int py_code_read(const struct py_version_offsets *o, const struct py_types *t, py_read_fn rd, void *ctx,
		 uint64_t code, int32_t firstlineno, struct py_code_info *out)
{
	memset(out, 0, sizeof(*out));
	if (!code)
		return -1;
	uint64_t type;
	if (read_u64(rd, ctx, code + (uint64_t)o->object_type, &type) || (t->code_type && type != t->code_type))
		return -1;
	int32_t line;
	if (rd(ctx, code + (uint64_t)o->code_firstlineno, &line, sizeof(line)) || line != firstlineno || line < 0)
		return -1;
	out->firstlineno = line;
	uint64_t name, file;
	int32_t name_off = o->code_qualname >= 0 ? o->code_qualname : o->code_name;
	if (read_u64(rd, ctx, code + (uint64_t)name_off, &name) || read_u64(rd, ctx, code + (uint64_t)o->code_filename, &file))
		return -1;
	if (py_str_read(o, t, rd, ctx, name, out->name, sizeof(out->name)) ||
	    py_str_read(o, t, rd, ctx, file, out->filename, sizeof(out->filename)))
		return -1;
	return out->name[0] ? 0 : -1;
}
