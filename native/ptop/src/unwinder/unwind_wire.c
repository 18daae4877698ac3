#include "unwind_wire.h"
#include <linux/types.h>
#include "ptop.h"
#include <math.h>
#include <stdbool.h>
#include <string.h>

size_t unwind_trailer_encode(const struct unwind_trailer *t, uint8_t *out)
{
	struct unwound_hdr h = { .axis = UINT32_MAX, .kstack = -1, .npcs = UNWIND_TRAILER_COUNTS, .value = (double)t->failed };
	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), t->full, sizeof(t->full));
	memcpy(out + sizeof(h) + sizeof(t->full), t->no_memory, sizeof(t->no_memory));
	memcpy(out + sizeof(h) + sizeof(t->full) + sizeof(t->no_memory), t->unheld, sizeof(t->unheld));
	return sizeof(h) + UNWIND_TRAILER_COUNTS * 8;
}

size_t unwind_name_encode(uint32_t tgid, const struct unwind_name *nm, const char *text, uint8_t *out)
{
	struct unwound_hdr h = { .axis = UNWIND_NAME_AXIS, .tgid = tgid, .kstack = -1 };
	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), nm, sizeof(*nm));
	memcpy(out + sizeof(h) + sizeof(*nm), text, nm->len);
	return sizeof(h) + sizeof(*nm) + nm->len;
}

void unwind_name_decode(const uint8_t *buf, struct unwind_name *nm, const char **text)
{
	memcpy(nm, buf + sizeof(struct unwound_hdr), sizeof(*nm));
	*text = (const char *)buf + sizeof(struct unwound_hdr) + sizeof(*nm);
}

/* A NAME record: its length as it says, its text printable (what ptop emits as a frame's name). */
static bool name_ok(const uint8_t *buf, size_t n, const struct unwound_hdr *h)
{
	struct unwind_name nm;
	if (h->npcs != 0 || h->interp_len != 0 || n < sizeof(*h) + sizeof(nm))
		return false;
	memcpy(&nm, buf + sizeof(*h), sizeof(nm));
	if (nm.len == 0 || nm.len > UNWIND_NAME_MAX || n != sizeof(*h) + sizeof(nm) + nm.len || nm.stamp == 0 || nm.addr == 0)
		return false;
	for (size_t i = 0; i < nm.len; i++) {
		uint8_t c = buf[sizeof(*h) + sizeof(nm) + i];
		if (c < 0x20 || c == 0x7f)
			return false;
	}
	return true;
}

int unwind_check_result(const uint8_t *buf, size_t n, struct unwound_hdr *h, struct unwind_trailer *t)
{
	if (n < sizeof(*h))
		return UNWIND_REC_BAD;
	memcpy(h, buf, sizeof(*h));
	if (h->axis == UINT32_MAX) {
		/* counts: finite, whole, not negative, not past what a u64 holds; the per-axis ones are u64 */
		if (h->npcs != UNWIND_TRAILER_COUNTS || h->interp_len != 0 || n != sizeof(*h) + UNWIND_TRAILER_COUNTS * 8 ||
		    !(h->value >= 0 && h->value < 18446744073709551616.0) || h->value != floor(h->value))
			return UNWIND_REC_BAD;
		t->failed = (uint64_t)h->value;
		memcpy(t->full, buf + sizeof(*h), sizeof(t->full));
		memcpy(t->no_memory, buf + sizeof(*h) + sizeof(t->full), sizeof(t->no_memory));
		memcpy(t->unheld, buf + sizeof(*h) + sizeof(t->full) + sizeof(t->no_memory), sizeof(t->unheld));
		return UNWIND_REC_TRAILER;
	}
	if (h->axis == UNWIND_NAME_AXIS)
		return name_ok(buf, n, h) ? UNWIND_REC_NAME : UNWIND_REC_BAD;
	if (h->axis >= P__COUNT || h->npcs > PTOP_MAX_UNWIND_DEPTH ||
	    h->interp_len > PTOP_INTERP_MAX || n != sizeof(*h) + h->npcs * 8ull + h->interp_len ||
	    !(h->value >= 0 && h->value < 18446744073709551616.0) ||
	    !(h->events >= 0 && h->events < 18446744073709551616.0) || h->kstack >= PTOP_MAX_STACKS ||
	    h->in_execve > 1 || (h->in_execve && h->npcs != 0))
		return UNWIND_REC_BAD;
	return UNWIND_REC_STACK;
}
