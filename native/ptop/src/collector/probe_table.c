/* The probe descriptors (probe_table.h): one row per probe. */
#include "probe_table.h"
#include "probes.h"
#include <linux/types.h>
#include "ptop.h"
#include "alloc_stats.h"
#include <stdio.h>
#include <string.h>

/* Each probe's hooks, in its own files. */
void cpu_attach(struct probes *p, int probe, int frequency_hz);
size_t cpu_budget_notes(const struct report *r, const struct probes *p, const char **notes);
char *budget_summary_json(void);
void syscalls_resolve(struct report *r, struct axis_result *out);
bool locks_load(struct probes *p, int probe, bool want);
void locks_attach(struct probes *p, int probe, int frequency_hz);
void locks_on_stack(const struct stack_count *sc, const int *ids, size_t n);
size_t locks_notes(const struct report *r, const struct probes *p, const char **notes);
char *locks_summary_json(void);
bool alloc_load(struct probes *p, int probe, bool want);
void alloc_attach_probe(struct probes *p, int probe, int frequency_hz);
void alloc_detach(void);
int alloc_attach(struct probes *p, int pid);
size_t alloc_retry(struct probes *p);
bool alloc_settle(struct probes *p, int probe);
size_t alloc_notes(const struct report *r, const struct probes *p, const char **notes);

/* The default set is the Profiler's too (src/config/probe-set.ts DEFAULT_PROBES): cpu, offcpu,
 * syscalls and locks. locks costs a target ~3.8 µs of CPU per lock wait, below what the bench
 * resolves on a contended and an uncontended program (bench/RESULTS.md, "locks probe cost"); alloc
 * costs a trap per allocation, above the 2% a default may cost ("alloc probe cost"). */
const struct probe_desc PROBES[P__COUNT] = {
	[P_CPU] = { .name = "cpu", .unit = "samples", .period_is_frequency = true,
		    .total_stat = -1, .samples_include_lost = true,
		    .lost_other = "had no readable user registers",
		    .machine_wide = true, .fired_by = "the cpu-clock perf event ticks on every CPU, busy or idle",
		    .unwinds = true, .by_default = true, .programs = { "on_cpu_sample" }, .load = probes_load_programs,
		    .attach = cpu_attach, .notes = cpu_budget_notes, .summary_json = budget_summary_json },
	[P_OFFCPU] = { .name = "offcpu", .unit = "nanoseconds",
		       .total_stat = -1,
		       .lost_other = "had no readable user registers or found the map of blocked threads full",
		       .machine_wide = true,
		       .fired_by = "the sched/sched_switch tracepoint fires at every context switch, ptop's own sleeps among them",
		       .unwinds = true, .needs_tracefs = true, .by_default = true, .programs = { "on_sched_switch" },
		       .load = probes_load_programs, .attach = probes_attach_programs },
	[P_SYSCALLS] = { .name = "syscalls", .unit = "calls",
			 .total_stat = -1, .lost_other = "found the map of calls in flight or the count map full",
			 .machine_wide = true,
			 .fired_by = "the raw_syscalls/sys_enter tracepoint fires at every system call, ptop's own among them",
			 .needs_tracefs = true, .by_default = true, .programs = { "on_sys_enter", "on_sys_exit" },
			 .load = probes_load_programs, .attach = probes_attach_programs, .resolve = syscalls_resolve },
	[P_LOCKS] = { .name = "locks", .unit = "nanoseconds",
		      .total_stat = -1,
		      .lost_other = "had no readable user registers or found the map of waits in flight full",
		      .unwinds = true, .needs_tracefs = true, .by_default = true,
		      .programs = { "on_futex_enter", "on_futex_exit" }, .load = locks_load,
		      .attach = locks_attach, .on_stack = locks_on_stack, .notes = locks_notes,
		      .summary_json = locks_summary_json },
	[P_ALLOC] = { .name = "alloc", .unit = "bytes",
		      .total_stat = STAT_ALLOC_BYTES, .samples_include_lost = true,
		      .lost_other = "had no readable user registers",
		      .unwinds = true, .by_default = false, .programs = { "on_alloc" }, .load = alloc_load,
		      .attach = alloc_attach_probe, .on_target = alloc_attach, .on_rescan = alloc_retry,
		      .settle = alloc_settle, .detach = alloc_detach, .notes = alloc_notes },
};

const char *probe_name(int i)
{
	return i >= 0 && i < P__COUNT ? PROBES[i].name : "?";
}

int probe_by_name(const char *name, size_t len)
{
	for (int i = 0; i < P__COUNT; i++)
		if (strlen(PROBES[i].name) == len && !memcmp(PROBES[i].name, name, len))
			return i;
	return -1;
}

int probe_default_mask(void)
{
	int mask = 0;
	for (int i = 0; i < P__COUNT; i++)
		if (PROBES[i].by_default)
			mask |= 1 << i;
	return mask;
}

const char *probe_names(int mask, const char *sep, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = 0;
	for (int i = 0; i < P__COUNT && off < len; i++)
		if (mask & (1 << i))
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? sep : "", PROBES[i].name);
	return buf;
}
