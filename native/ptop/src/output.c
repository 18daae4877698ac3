#include "output.h"
#include "args.h"
#include "probes.h"
#include "procscan.h"
#include "strtab.h"
#include "syscall_names.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static struct strmap frame_ids;
static int next_frame_id;
static char **functions; /* frame id -> function name (NULL when unresolved) */
static size_t nfunctions;

const char *out_frame_function(int id)
{
	return id >= 0 && (size_t)id < nfunctions ? functions[id] : NULL;
}

/* JSON string with control characters escaped and invalid UTF-8 replaced by U+FFFD: names come
 * from target-controlled ELF and perf-map bytes. */
static void put_str(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	putchar('"');
	while (*p) {
		unsigned char c = *p;
		if (c == '"' || c == '\\') {
			putchar('\\');
			putchar(c);
			p++;
		} else if (c < 0x20) {
			printf("\\u%04x", c);
			p++;
		} else if (c < 0x80) {
			putchar(c);
			p++;
		} else {
			int len = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
			int ok = len > 0 && !(len == 2 && c < 0xc2) && !(len == 4 && c > 0xf4);
			for (int i = 1; ok && i < len; i++)
				if ((p[i] & 0xc0) != 0x80)
					ok = 0;
			if (ok && len == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)))
				ok = 0;
			if (ok && len == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90)))
				ok = 0;
			if (ok) {
				fwrite(p, 1, (size_t)len, stdout);
				p += len;
			} else {
				fputs("\\ufffd", stdout);
				p++;
			}
		}
	}
	putchar('"');
}

void out_header(const char *workload, const char *ns, int mask, int freq, double warmup, double duration,
		int64_t started_at_ms)
{
	fputs("{\"type\":\"header\",\"version\":1,\"workload\":", stdout);
	put_str(workload);
	if (ns) {
		fputs(",\"namespace\":", stdout);
		put_str(ns);
	}
	fputs(",\"probes_requested\":[", stdout);
	int first = 1;
	for (int i = 0; i < P__COUNT; i++)
		if (mask & (1 << i)) {
			printf("%s\"%s\"", first ? "" : ",", probe_name(i));
			first = 0;
		}
	printf("],\"frequency_hz\":%d,\"warmup_sec\":%g,\"duration_sec\":%g,\"started_at_ms\":%" PRId64, freq, warmup,
	       duration, started_at_ms);
	char host[256] = { 0 };
	if (gethostname(host, sizeof(host) - 1) == 0) {
		fputs(",\"hostname\":", stdout);
		put_str(host);
	}
	struct utsname u;
	if (uname(&u) == 0) {
		fputs(",\"kernel\":", stdout);
		put_str(u.release);
	}
	fputs("}\n", stdout);
}

void out_probe(const char *name, bool attached, const char *reason)
{
	printf("{\"type\":\"probe\",\"name\":\"%s\",\"attached\":%s", name, attached ? "true" : "false");
	if (reason) {
		fputs(",\"reason\":", stdout);
		put_str(reason);
	}
	fputs("}\n", stdout);
}

void out_axis(const char *name, const char *unit, int64_t period_ns)
{
	printf("{\"type\":\"axis\",\"name\":\"%s\",\"unit\":\"%s\"", name, unit);
	if (period_ns > 0)
		printf(",\"period_ns\":%" PRId64, period_ns);
	fputs("}\n", stdout);
}

void out_process(const struct proc *p)
{
	printf("{\"type\":\"process\",\"pid\":%d,\"nspid\":%d,\"comm\":", p->pid, p->nspid);
	put_str(p->comm);
	if (p->exe) {
		fputs(",\"exe\":", stdout);
		put_str(p->exe);
	}
	if (p->ns) {
		fputs(",\"namespace\":", stdout);
		put_str(p->ns);
	}
	fputs("}\n", stdout);
}

static int frame_id_for_key(const char *key, int *is_new)
{
	int id = strmap_get(&frame_ids, key);
	*is_new = id < 0;
	if (id < 0) {
		id = next_frame_id++;
		strmap_put(&frame_ids, key, id);
	}
	return id;
}

int out_frame_id(const struct frame_info *fi)
{
	char key[6000];
	if (fi->function)
		snprintf(key, sizeof(key), "%s|%s|%s|%s", fi->kind, fi->module ? fi->module : "",
			 fi->build_id ? fi->build_id : "", fi->function);
	else
		snprintf(key, sizeof(key), "%s|%s|%s|@%" PRIx64, fi->kind, fi->module ? fi->module : "",
			 fi->build_id ? fi->build_id : "", fi->address);
	int is_new;
	int id = frame_id_for_key(key, &is_new);
	if (!is_new)
		return id;
	if ((size_t)id >= nfunctions) {
		size_t cap = nfunctions ? nfunctions * 2 : 1024;
		while (cap <= (size_t)id)
			cap *= 2;
		functions = xrealloc(functions, cap, sizeof(*functions));
		memset(functions + nfunctions, 0, (cap - nfunctions) * sizeof(*functions));
		nfunctions = cap;
	}
	functions[id] = fi->function ? xstrndup(fi->function, strlen(fi->function)) : NULL;
	printf("{\"type\":\"frame\",\"id\":%d,\"function\":", id);
	if (fi->function) {
		put_str(fi->function);
	} else {
		char f[64];
		snprintf(f, sizeof(f), "[unknown] 0x%" PRIx64, fi->address);
		put_str(f);
	}
	if (fi->module) {
		fputs(",\"module\":", stdout);
		put_str(fi->module);
	}
	if (fi->build_id) {
		fputs(",\"build_id\":", stdout);
		put_str(fi->build_id);
	}
	printf(",\"kind\":\"%s\"", fi->kind);
	if (fi->line > 0)
		printf(",\"line\":%d", fi->line);
	if (!fi->function)
		printf(",\"address\":\"0x%" PRIx64 "\"", fi->address);
	fputs("}\n", stdout);
	return id;
}

int out_syscall_frame_id(unsigned nr)
{
	char key[64], name[48];
	const char *n = syscall_name(nr);
	if (n)
		snprintf(name, sizeof(name), "%s", n);
	else
		snprintf(name, sizeof(name), "syscall_%u", nr);
	snprintf(key, sizeof(key), "syscall|%s", name);
	int is_new;
	int id = frame_id_for_key(key, &is_new);
	if (is_new) {
		printf("{\"type\":\"frame\",\"id\":%d,\"function\":", id);
		put_str(name);
		fputs(",\"kind\":\"syscall\"}\n", stdout);
	}
	return id;
}

void out_stack(const char *axis, const int *ids, size_t n, double value, double total_ns, int pid)
{
	printf("{\"type\":\"stack\",\"axis\":\"%s\",\"frames\":[", axis);
	for (size_t i = 0; i < n; i++)
		printf("%s%d", i ? "," : "", ids[i]);
	printf("],\"value\":%.0f", value);
	if (total_ns >= 0)
		printf(",\"total_ns\":%.0f", total_ns);
	if (pid > 0)
		printf(",\"pid\":%d", pid);
	fputs("}\n", stdout);
}

static struct {
	const char *axis;
	double value;
} totals[4];
static size_t ntotals;

void out_summary_total(const char *axis, double value)
{
	if (ntotals < sizeof(totals) / sizeof(totals[0]))
		totals[ntotals++] = (typeof(totals[0])){ axis, value };
}

static struct {
	const char *axis;
	const char *reason;
} not_fired[P__COUNT];
static size_t nnot_fired;

void out_summary_not_fired(const char *axis, const char *reason)
{
	if (nnot_fired < sizeof(not_fired) / sizeof(not_fired[0]))
		not_fired[nnot_fired++] = (typeof(not_fired[0])){ axis, reason };
}

void out_summary(const char *const *axes, const double *samples, const double *lost, const double *incomplete,
		 size_t naxes, bool partial,
		 const char *partial_reason, int64_t ended_at_ms, double measured_sec, const char *const *notes,
		 size_t nnotes, const char *extra_json)
{
	fputs("{\"type\":\"summary\",\"samples\":{", stdout);
	for (size_t i = 0; i < naxes; i++)
		printf("%s\"%s\":%.0f", i ? "," : "", axes[i], samples[i]);
	fputs("},\"lost\":{", stdout);
	for (size_t i = 0; i < naxes; i++)
		printf("%s\"%s\":%.0f", i ? "," : "", axes[i], lost[i]);
	fputs("}", stdout);
	if (incomplete) {
		fputs(",\"incomplete\":{", stdout);
		for (size_t i = 0; i < naxes; i++)
			printf("%s\"%s\":%.0f", i ? "," : "", axes[i], incomplete[i]);
		fputs("}", stdout);
	}
	if (ntotals) {
		fputs(",\"totals\":{", stdout);
		for (size_t i = 0; i < ntotals; i++)
			printf("%s\"%s\":%.0f", i ? "," : "", totals[i].axis, totals[i].value);
		fputs("}", stdout);
	}
	if (nnot_fired) {
		fputs(",\"not_fired\":{", stdout);
		for (size_t i = 0; i < nnot_fired; i++) {
			printf("%s\"%s\":", i ? "," : "", not_fired[i].axis);
			put_str(not_fired[i].reason);
		}
		fputs("}", stdout);
	}
	printf(",\"partial\":%s", partial ? "true" : "false");
	if (partial_reason) {
		fputs(",\"partial_reason\":", stdout);
		put_str(partial_reason);
	}
	printf(",\"ended_at_ms\":%" PRId64 ",\"measured_sec\":%.3f", ended_at_ms, measured_sec);
	if (nnotes) {
		fputs(",\"notes\":[", stdout);
		for (size_t i = 0; i < nnotes; i++) {
			if (i)
				putchar(',');
			put_str(notes[i]);
		}
		putchar(']');
	}
	if (extra_json)
		fputs(extra_json, stdout);
	fputs("}\n", stdout);
}

void out_flush(void)
{
	fflush(stdout);
}
