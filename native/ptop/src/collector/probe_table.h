/* One descriptor per probe: everything ptop does differently per probe is a lookup in PROBES
 * (probe_table.c), indexed by the probe's number. Adding a probe: its number here, its row and its
 * hooks' declarations in probe_table.c, and its own files (a bpf/ unit, its attach in
 * collector/probes/, its notes in out/ when it has any, a header for counters of its own). Nothing
 * else names a probe: its stat slots are a block at its number (bpf/ptop.h PTOP_STAT), its records
 * carry its number as their axis and say in their flags how the unwinder adds them up
 * (bpf/ptop.h SAMPLE_F_*), and its `ran` flag is at its number. */
#ifndef PTOP_PROBE_TABLE_H
#define PTOP_PROBE_TABLE_H

/* The probes' numbers: bit 1 << P_* in a --probes mask, the axis of its records and of the
 * unwinder's aggregate, its block of stat slots. Plain enum: the BPF units include it too. */
enum { P_CPU = 0, P_OFFCPU, P_SYSCALLS, P_LOCKS, P_ALLOC, P__COUNT };

#ifndef __bpf__
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct probes;
struct report;
struct axis_result;
struct stack_count;

#define PROBE_NOTES_MAX 3

struct probe_desc {
	const char *name;          /* in --probes, the probe record and the axis record */
	const char *unit;          /* the axis's unit */
	bool period_is_frequency;  /* the axis's period_ns is 1 s / --frequency (a sampled axis) */
	/* Its stat slots (bpf/ptop.h PTOP_STAT) give the summary's samples and lost. */
	int total_stat;            /* a stat slot counted exactly for summary.totals, -1: none */
	/* The loss note (out/loss_report.c): what else than a full ring buffer (an unwinding probe's
	 * STAT_RINGBUF_FULL) loses a sample in the kernel, and whether its STAT_SAMPLES counts the lost
	 * ones too (every attempt) or only those sent. */
	const char *lost_other;
	bool samples_include_lost;
	bool machine_wide;         /* runs whatever the targets do: sets its `ran` flag (bpf/ptop.h) */
	const char *fired_by;      /* machine_wide: why it must run inside any window */
	bool unwinds;              /* its samples carry a stack snapshot for the unwinder (through the ring buffer) */
	bool needs_tracefs;        /* its programs are tracefs tracepoints */
	bool by_default;           /* in the default set: the Profiler's DEFAULT_PROBES too (test/unit/probe-defaults.test.ts) */
	const char *programs[2];   /* its BPF programs, by name (probes_load_programs, probes_attach_programs) */
	/* Before the BPF object loads: sets its programs' autoload to `want`; false (its reason
	 * written) when it cannot be attached on this machine. */
	bool (*load)(struct probes *p, int probe, bool want);
	/* After the load, when load said yes: attaches, setting p->attached or p->reason. */
	void (*attach)(struct probes *p, int probe, int frequency_hz);
	/* For a probe attached per target process (NULL: none): each target found, then each /proc
	 * rescan (to retry what failed; their results are the probe's own), and once the first targets
	 * are found, before the window: false (its reason written) when it covers none of them. */
	int (*on_target)(struct probes *p, int pid);
	size_t (*on_rescan)(struct probes *p);
	bool (*settle)(struct probes *p, int probe);
	/* At the window's end: releases the links it keeps itself (NULL: it keeps none). */
	void (*detach)(void);
	/* Resolve stage, for an axis whose values are not unwound stacks (NULL: the unwinder's stacks). */
	void (*resolve)(struct report *r, struct axis_result *out);
	/* Resolve stage: sees each of its stacks once symbolized, root first (NULL: nothing more). */
	void (*on_stack)(const struct stack_count *sc, const int *ids, size_t n);
	/* Emit stage: its notes (at most PROBE_NOTES_MAX; NULL: none) and extra summary members. */
	size_t (*notes)(const struct report *r, const struct probes *p, const char **notes);
	char *(*summary_json)(void);
};

extern const struct probe_desc PROBES[P__COUNT];

/* The name of probe i ("?" out of range). */
const char *probe_name(int i);
/* The number of the probe called name (len bytes), -1 when none is. */
int probe_by_name(const char *name, size_t len);
/* The default set as a mask. */
int probe_default_mask(void);
/* The names of the probes in mask, joined by sep, into buf. */
const char *probe_names(int mask, const char *sep, char *buf, size_t len);
#endif /* __bpf__ */
#endif
