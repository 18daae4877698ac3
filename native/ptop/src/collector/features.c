/* The kernel features ptop relies on, checked at start so that an older kernel is refused with
 * the feature it lacks and what that costs, instead of a verifier dump at load time.
 *
 * The minimum is Linux 5.15, the kernel of bpf_task_pt_regs (the unwinder's user registers at a
 * context switch); CAP_BPF and CAP_PERFMON (5.8) and kernel BTF (5.4) are checked first because
 * without them nothing else can even be probed. The BPF helpers are not listed by hand: they are
 * read from the instructions of the embedded BPF programs, so a program that starts calling a
 * newer helper is refused on kernels without it by name (see native/ptop/README.md). */
#include "kernel_features.h"
#include "caps.h"
#include "ptop.skel.h"
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* Helper names by id, generated from the build's vmlinux.h (Makefile: bpf_helper_names.h). */
static const char *const HELPER_NAMES[] = {
#include "bpf_helper_names.h"
};

/* The kernel that brought each helper ptop's programs call today (others: "a later kernel"). */
static const struct {
	int id;
	const char *since;
} HELPER_SINCE[] = {
	{ BPF_FUNC_map_lookup_elem, "3.19" },	  { BPF_FUNC_map_update_elem, "3.19" },
	{ BPF_FUNC_map_delete_elem, "3.19" },	  { BPF_FUNC_ktime_get_ns, "4.1" },
	{ BPF_FUNC_get_smp_processor_id, "4.1" }, { BPF_FUNC_get_current_pid_tgid, "4.2" },
	{ BPF_FUNC_get_stackid, "4.6" },	  { BPF_FUNC_probe_read_user, "5.5" },
	{ BPF_FUNC_probe_read_kernel, "5.5" },	  { BPF_FUNC_ringbuf_output, "5.8" },
	{ BPF_FUNC_get_current_task_btf, "5.11" }, { BPF_FUNC_task_pt_regs, "5.15" },
	{ BPF_FUNC_get_current_task, "4.8" },	  { BPF_FUNC_get_prandom_u32, "4.1" },
	{ BPF_FUNC_get_attach_cookie, "5.15" }, { BPF_FUNC_ringbuf_query, "5.8" },
};

static const struct {
	enum bpf_prog_type type;
	const char *name, *since;
} PROG_TYPES[] = {
	{ BPF_PROG_TYPE_PERF_EVENT, "perf_event programs", "4.9" },
	{ BPF_PROG_TYPE_TRACEPOINT, "tracepoint programs", "4.7" },
	{ BPF_PROG_TYPE_KPROBE, "kprobe/uprobe programs", "4.1" },
};

static const struct {
	enum bpf_map_type type;
	const char *name, *since;
} MAP_TYPES[] = {
	{ BPF_MAP_TYPE_HASH, "hash maps", "3.19" },
	{ BPF_MAP_TYPE_ARRAY, "array maps", "3.19" },
	{ BPF_MAP_TYPE_PERCPU_ARRAY, "per-CPU array maps", "4.6" },
	{ BPF_MAP_TYPE_STACK_TRACE, "stack trace maps", "4.6" },
	{ BPF_MAP_TYPE_RINGBUF, "ring buffers", "5.8" },
};

static const char COST[] = "the BPF object loads as a whole, so nothing can be measured on this kernel; "
			   "ptop needs Linux 5.15 or later with BTF (native/ptop/README.md, \"Kernels\")";

static const char *release(void)
{
	static struct utsname u;
	if (!u.release[0] && uname(&u) != 0)
		snprintf(u.release, sizeof(u.release), "unknown");
	return u.release;
}

static const char *helper_name(int id)
{
	size_t n = sizeof(HELPER_NAMES) / sizeof(HELPER_NAMES[0]);
	return id >= 0 && (size_t)id < n && HELPER_NAMES[id] ? HELPER_NAMES[id] : NULL;
}

/* Helpers a program calls only behind bpf_core_enum_value_exists(enum bpf_func_id, ...): on a
 * kernel without them libbpf turns the guard false and the verifier never reaches the call, so
 * their absence costs only what they serve. bpf_loop (5.17): Python frames (python.bpf.h). */
static const int OPTIONAL_HELPERS[] = { BPF_FUNC_loop };

static bool optional_helper(int id)
{
	for (size_t i = 0; i < sizeof(OPTIONAL_HELPERS) / sizeof(OPTIONAL_HELPERS[0]); i++)
		if (OPTIONAL_HELPERS[i] == id)
			return true;
	return false;
}

static const char *helper_since(int id)
{
	for (size_t i = 0; i < sizeof(HELPER_SINCE) / sizeof(HELPER_SINCE[0]); i++)
		if (HELPER_SINCE[i].id == id)
			return HELPER_SINCE[i].since;
	return NULL;
}

/* Every helper call (BPF_JMP|BPF_CALL with src_reg 0: not a BPF-to-BPF call or a kfunc) of every
 * program, probed for that program's type. 0 when all exist; -1 with msg naming the first missing. */
static int check_helpers(struct ptop_bpf *skel, char *msg, size_t len)
{
	struct bpf_program *prog;
	bpf_object__for_each_program(prog, skel->obj) {
		const struct bpf_insn *insn = bpf_program__insns(prog);
		size_t n = bpf_program__insn_cnt(prog);
		enum bpf_prog_type type = bpf_program__type(prog);
		for (size_t i = 0; i < n; i++) {
			if (insn[i].code != (BPF_JMP | BPF_CALL) || insn[i].src_reg != 0)
				continue;
			int id = insn[i].imm;
			if (optional_helper(id) || libbpf_probe_bpf_helper(type, id, NULL) != 0) /* 1: present; <0: could not tell */
				continue;
			const char *name = helper_name(id), *since = helper_since(id);
			char unnamed[32];
			snprintf(unnamed, sizeof(unnamed), "#%d", id);
			char when[64];
			snprintf(when, sizeof(when), since ? "Linux %s" : "newer than this kernel", since);
			snprintf(msg, len, "this kernel (%s) lacks the BPF helper %s (%s) that program %s (%s) calls: %s",
				 release(), name ? name : unnamed, when, bpf_program__name(prog),
				 bpf_program__section_name(prog), COST);
			return -1;
		}
	}
	return 0;
}

/* The probes' expected failures are not worth libbpf's log lines; PTOP_DEBUG=1 shows them. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return getenv("PTOP_DEBUG") ? vfprintf(stderr, fmt, ap) : 0;
}

int features_check(char *msg, size_t len)
{
	libbpf_set_print(quiet);
	/* CAP_BPF is the last capability from 5.8 on: an older kernel cannot grant it at all. */
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int last = -1;
	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = -1;
		fclose(f);
	}
	if (last >= 0 && last < 39) {
		snprintf(msg, len, "this kernel (%s) has no CAP_BPF and CAP_PERFMON (Linux 5.8), the capabilities ptop "
			 "runs with: %s", release(), COST);
		return -1;
	}
	struct btf *vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		snprintf(msg, len, "this kernel (%s) exposes no BTF at /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF, "
			 "Linux 5.4): the BPF programs cannot be relocated to its structure layouts (CO-RE); %s",
			 release(), COST);
		return -1;
	}
	btf__free(vmlinux);
	/* The BPF probes below load test programs: without CAP_BPF they fail for that reason alone,
	 * and caps_check names the missing capabilities instead. */
	if ((caps_effective() >> 39 & 1) == 0) {
		snprintf(msg, len, "this kernel (%s) has CAP_BPF, CAP_PERFMON and BTF; its BPF program types, maps and "
			 "helpers were not probed (ptop holds no CAP_BPF here)", release());
		return 0;
	}
	for (size_t i = 0; i < sizeof(PROG_TYPES) / sizeof(PROG_TYPES[0]); i++)
		if (libbpf_probe_bpf_prog_type(PROG_TYPES[i].type, NULL) == 0) {
			snprintf(msg, len, "this kernel (%s) cannot load %s (Linux %s): %s", release(), PROG_TYPES[i].name,
				 PROG_TYPES[i].since, COST);
			return -1;
		}
	for (size_t i = 0; i < sizeof(MAP_TYPES) / sizeof(MAP_TYPES[0]); i++)
		if (libbpf_probe_bpf_map_type(MAP_TYPES[i].type, NULL) == 0) {
			snprintf(msg, len, "this kernel (%s) cannot create %s (Linux %s): %s", release(), MAP_TYPES[i].name,
				 MAP_TYPES[i].since, COST);
			return -1;
		}
	snprintf(msg, len, "this kernel (%s) has every feature ptop needs", release());
	struct ptop_bpf *skel = ptop_bpf__open();
	if (!skel)
		return 0; /* probes_start reports why the object does not open */
	int rc = check_helpers(skel, msg, len);
	ptop_bpf__destroy(skel);
	return rc;
}
