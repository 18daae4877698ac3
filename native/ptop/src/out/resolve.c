/* The resolve stage (report.h): each attached axis's stacks symbolized (symbols/), their
 * interpreter frames merged in (interp/), and aggregated. After the capability drop. */
#include "report.h"
#include "interp.h"
#include "hotspot.h"
#include "output.h"
#include "python.h"
#include "v8.h"
#include "strtab.h"
#include "symbolize.h"
#include "unwind.h"
#include "v8frames.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static struct strmap addr_frames; /* "pid:gen:addr:leaf" / "k:addr" -> frame id */

/* addr of pid's image of generation gen: two images may share addresses, not names. */
static int user_frame(int pid, uint32_t gen, uint64_t addr, int leaf)
{
	char key[64];
	snprintf(key, sizeof(key), "%d:%" PRIu32 ":%" PRIx64 ":%d", pid, gen, addr, leaf);
	int id = strmap_get(&addr_frames, key);
	if (id >= 0)
		return id;
	struct frame_info fi;
	/* A return address points after the call: look up the call instruction itself. */
	sym_resolve_user(pid, gen, leaf ? addr : addr - 1, &fi);
	id = out_frame_id(&fi);
	strmap_put(&addr_frames, key, id);
	return id;
}

static int kernel_frame(uint64_t addr)
{
	char key[48];
	snprintf(key, sizeof(key), "k:%" PRIx64, addr);
	int id = strmap_get(&addr_frames, key);
	if (id >= 0)
		return id;
	struct frame_info fi;
	sym_resolve_kernel(addr, &fi);
	if (!fi.function && sym_kernel_hidden()) {
		/* Addresses hidden by kptr_restrict: one opaque frame instead of one per address. */
		fi.function = "[kernel]";
		fi.address = 0;
	}
	id = out_frame_id(&fi);
	strmap_put(&addr_frames, key, id);
	return id;
}

static int truncated_frame(void)
{
	struct frame_info fi = { .function = "[truncated]", .kind = "unknown" };
	return out_frame_id(&fi);
}

/* Root-first frame ids of one stack; *incomplete when its user part does not reach a root frame. */
static size_t stack_frames(const struct report *r, const struct stack_count *sc, int *ids, bool *incomplete)
{
	const struct stack_key *k = &sc->key;
	size_t n = 0;
	*incomplete = false;
	const size_t first_user = 0;
	size_t user_depth = 0; /* of them, frames with a pc from the unwinder (the last ones) */
	/* BPF stacks are leaf first; the stream wants root first: user root .. user leaf, kernel entry .. kernel leaf. */
	if (sc->npcs > 0 || sc->truncated) {
		const uint64_t *ips = sc->pcs;
		int depth = (int)sc->npcs;
		bool cut = sc->truncated;
		/* The unwinder already ends a stack at a pc outside the mappings it knew; the mappings
		 * read at the end of the window are checked again here. */
		for (int i = 0; i < depth; i++)
			if (sym_in_mapping((int)k->tgid, sc->gen, ips[i]) == 0) {
				depth = i;
				cut = true;
				break;
			}
		/* The unwinder ends a walk without error only where the CFI says the stack ends
		 * (_start and the thread entry mark their return address undefined). Otherwise the
		 * stack is rooted in a [truncated] frame, even when not a single user frame was read. */
		if (cut) {
			ids[n++] = truncated_frame();
			*incomplete = true;
		}
		for (int i = depth - 1; i >= 0; i--)
			ids[n++] = user_frame((int)k->tgid, sc->gen, ips[i], 1); /* already the call site */
		user_depth = (size_t)depth;
	} else if (sc->in_execve) {
		/* Taken inside execve, between images: its kernel frames, under a frame that says so,
		 * rather than a user stack read from an image that was being replaced. */
		struct frame_info fi = { .function = "[in execve]", .kind = "unknown" };
		ids[n++] = out_frame_id(&fi);
	}
	if (sc->interp_len && v8_section(sc->interp, sc->interp_len)) {
		/* JavaScript frames where V8's code frames stand, matched by pc (v8frames.c) */
		int merged[PTOP_MAX_UNWIND_DEPTH + 1 + PY_MAX_FRAMES]; /* within STACK_IDS_MAX, as Python's */
		uint64_t pcs[PTOP_MAX_UNWIND_DEPTH + 1];
		size_t nn = n - first_user;
		for (size_t i = 0; i < nn; i++)
			pcs[i] = i < nn - user_depth ? 0 : sc->pcs[nn - 1 - i];
		size_t m = v8_merge((int)k->tgid, sc->interp, sc->interp_len, &ids[first_user], pcs, nn, merged,
				    PTOP_MAX_UNWIND_DEPTH + 1 + PY_MAX_FRAMES);
		memcpy(&ids[first_user], merged, m * sizeof(int));
		n = first_user + m;
	} else if (sc->interp_len) {
		/* Python frames where the evaluation loop's frames stand (interp.c) */
		int native[PTOP_MAX_UNWIND_DEPTH + 1], merged[PTOP_MAX_UNWIND_DEPTH + 1 + PY_MAX_FRAMES];
		const char *functions[PTOP_MAX_UNWIND_DEPTH + 1];
		size_t nn = n - first_user;
		memcpy(native, &ids[first_user], nn * sizeof(int));
		for (size_t i = 0; i < nn; i++)
			functions[i] = out_frame_function(native[i]);
		size_t m = interp_merge((int)k->tgid, sc->interp, sc->interp_len, native, functions, nn, merged,
					PTOP_MAX_UNWIND_DEPTH + 1 + PY_MAX_FRAMES);
		memcpy(&ids[first_user], merged, m * sizeof(int));
		n = first_user + m;
	}
	if (k->kstack >= 0 && k->kstack < PTOP_MAX_STACKS && r->kstacks[k->kstack]) {
		uint64_t *ips = r->kstacks[k->kstack];
		int depth = 0;
		while (depth < PTOP_MAX_STACK_DEPTH && ips[depth])
			depth++;
		for (int i = depth - 1; i >= 0; i--) {
			int id = kernel_frame(ips[i]);
			if (n && ids[n - 1] == id && sym_kernel_hidden())
				continue;
			ids[n++] = id;
		}
	}
	if (n == 0) {
		struct frame_info fi = { .function = "[no stack]", .kind = "unknown" };
		ids[n++] = out_frame_id(&fi);
	}
	return n;
}

/* Room for one stack's frame ids: user, interpreter and kernel frames, a [truncated] root. */
#define STACK_IDS_MAX (PTOP_MAX_UNWIND_DEPTH + PTOP_MAX_STACK_DEPTH + PY_MAX_FRAMES + 2)

/* An unwinding axis: its stacks from the unwinder, each resolved and aggregated. */
static void resolve_stacks(struct report *r, int probe, struct axis_result *out)
{
	int ids[STACK_IDS_MAX];
	bool incomplete;
	for (size_t i = 0; i < r->nstacks[probe]; i++) {
		const struct stack_count *sc = &r->stacks[probe][i];
		size_t n = stack_frames(r, sc, ids, &incomplete);
		r->any_kernel |= sc->key.kstack >= 0;
		out->total += (double)sc->value;
		out->incomplete += incomplete ? (double)sc->value : 0;
		agg_add(&out->agg, (int)sc->key.tgid, ids, n, (double)sc->value, (double)sc->events, -1);
		if (probe == P_CPU) /* for the notes: how many of a JVM's samples lost Java frames */
			hs_count((int)sc->key.tgid, sc->interp, sc->interp_len, (double)sc->value);
		if (PROBES[probe].on_stack)
			PROBES[probe].on_stack(sc, ids, n);
	}
}

/* The syscalls axis (its resolve hook): one frame per system call, with the calls and their time. */
void syscalls_resolve(struct report *r, struct axis_result *out)
{
	for (size_t i = 0; i < r->nsys; i++) {
		int id = out_syscall_frame_id(r->sys[i].key.nr);
		agg_add(&out->agg, (int)r->sys[i].key.tgid, &id, 1, (double)r->sys[i].val.calls, (double)r->sys[i].val.calls,
			(double)r->sys[i].val.total_ns);
	}
}

void report_resolve(struct report *r, const struct probes *p)
{
	for (int i = 0; i < P__COUNT; i++) {
		memset(&r->axes[i], 0, sizeof(r->axes[i]));
		if (!p->attached[i])
			continue;
		if (PROBES[i].resolve)
			PROBES[i].resolve(r, &r->axes[i]);
		else
			resolve_stacks(r, i, &r->axes[i]);
	}
}
