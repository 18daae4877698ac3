#include "output.h"
#include "args.h"
#include "probes.h"
#include "procscan.h"
#include "strtab.h"
#include "syscall_names.h"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static struct strmap frame_ids;
static int next_frame_id;
static char **functions; /* frame id -> function name (NULL when unresolved) */
static char **modules;   /* frame id -> module (NULL when none) */
static size_t nfunctions;
/* frame id -> its record, held back until a written stack needs it (NULL once written: every id
 * below next_frame_id has a record until then) */
static char **frame_lines;
static size_t *frame_lens;

const char *out_frame_function(int id)
{
	return id >= 0 && (size_t)id < nfunctions ? functions[id] : NULL;
}

const char *out_frame_module(int id)
{
	return id >= 0 && (size_t)id < nfunctions ? modules[id] : NULL;
}

/* Every record is built in memory first, so that its size is known before a byte of it reaches
 * stdout: the stream's size is bounded by construction (output.h, PTOP_STREAM_BUDGET). */
static uint64_t written;
static char *rec_buf;
static size_t rec_len;

static FILE *rec_begin(void)
{
	FILE *f = open_memstream(&rec_buf, &rec_len);
	if (!f) {
		fprintf(stderr, "ptop: out of memory writing the stream\n");
		exit(1);
	}
	return f;
}

/* Ends the record; the caller owns the returned line (rec_len bytes, NUL-terminated). */
static char *rec_end(FILE *f, size_t *len)
{
	if (fclose(f) != 0 || !rec_buf) {
		fprintf(stderr, "ptop: out of memory writing the stream\n");
		exit(1);
	}
	*len = rec_len;
	char *line = rec_buf;
	rec_buf = NULL;
	return line;
}

static void put_line(const char *line, size_t len)
{
	fwrite(line, 1, len, stdout);
	written += len;
}

static void rec_write(FILE *f)
{
	size_t len;
	char *line = rec_end(f, &len);
	put_line(line, len);
	free(line);
}

/* JSON string with control characters escaped and invalid UTF-8 replaced by U+FFFD: names come
 * from target-controlled ELF and perf-map bytes. */
static void put_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	fputc('"', f);
	while (*p) {
		unsigned char c = *p;
		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
			p++;
		} else if (c < 0x20) {
			fprintf(f, "\\u%04x", c);
			p++;
		} else if (c < 0x80) {
			fputc(c, f);
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
				fwrite(p, 1, (size_t)len, f);
				p += len;
			} else {
				fputs("\\ufffd", f);
				p++;
			}
		}
	}
	fputc('"', f);
}

/* An optional string member: `,"key":"value"`, nothing when value is NULL. */
static void put_member(FILE *f, const char *key, const char *value)
{
	if (!value)
		return;
	fprintf(f, ",\"%s\":", key);
	put_str(f, value);
}

void out_header(const char *workload, const char *ns, int mask, int freq, double warmup, double duration,
		int64_t started_at_ms)
{
	FILE *f = rec_begin();
	fputs("{\"type\":\"header\",\"version\":1,\"workload\":", f);
	put_str(f, workload);
	put_member(f, "namespace", ns);
	fputs(",\"probes_requested\":[", f);
	int first = 1;
	for (int i = 0; i < P__COUNT; i++)
		if (mask & (1 << i)) {
			fprintf(f, "%s\"%s\"", first ? "" : ",", probe_name(i));
			first = 0;
		}
	fprintf(f, "],\"frequency_hz\":%d,\"warmup_sec\":%g,\"duration_sec\":%g,\"started_at_ms\":%" PRId64, freq, warmup,
		duration, started_at_ms);
	char host[256] = { 0 };
	if (gethostname(host, sizeof(host) - 1) == 0) {
		fputs(",\"hostname\":", f);
		put_str(f, host);
	}
	struct utsname u;
	if (uname(&u) == 0) {
		fputs(",\"kernel\":", f);
		put_str(f, u.release);
	}
	fputs("}\n", f);
	rec_write(f);
}

void out_probe(const char *name, bool attached, const char *reason)
{
	FILE *f = rec_begin();
	fprintf(f, "{\"type\":\"probe\",\"name\":\"%s\",\"attached\":%s", name, attached ? "true" : "false");
	put_member(f, "reason", reason);
	fputs("}\n", f);
	rec_write(f);
}

void out_axis(const char *name, const char *unit, int64_t period_ns)
{
	FILE *f = rec_begin();
	fprintf(f, "{\"type\":\"axis\",\"name\":\"%s\",\"unit\":\"%s\"", name, unit);
	if (period_ns > 0)
		fprintf(f, ",\"period_ns\":%" PRId64, period_ns);
	fputs("}\n", f);
	rec_write(f);
}

static size_t processes_left_out;

size_t out_processes_left_out(void)
{
	return processes_left_out;
}

void out_process(const struct proc *p)
{
	FILE *f = rec_begin();
	fprintf(f, "{\"type\":\"process\",\"pid\":%d,\"nspid\":%d,\"comm\":", p->pid, p->nspid);
	put_str(f, p->comm);
	put_member(f, "exe", p->exe);
	put_member(f, "namespace", p->ns);
	fputs("}\n", f);
	size_t len;
	char *line = rec_end(f, &len);
	if (written + len <= PTOP_STREAM_BUDGET)
		put_line(line, len);
	else
		processes_left_out++;
	free(line);
}

/* A new frame id: its record is kept, to be written before the first stack written with it. */
static int frame_id_for_key(const char *key, int *is_new)
{
	int id = strmap_get(&frame_ids, key);
	*is_new = id < 0;
	if (id < 0) {
		id = next_frame_id++;
		strmap_put(&frame_ids, key, id);
	}
	if (*is_new && (size_t)id >= nfunctions) {
		size_t cap = nfunctions ? nfunctions * 2 : 1024;
		while (cap <= (size_t)id)
			cap *= 2;
		functions = xrealloc(functions, cap, sizeof(*functions));
		modules = xrealloc(modules, cap, sizeof(*modules));
		frame_lines = xrealloc(frame_lines, cap, sizeof(*frame_lines));
		frame_lens = xrealloc(frame_lens, cap, sizeof(*frame_lens));
		size_t more = cap - nfunctions;
		memset(functions + nfunctions, 0, more * sizeof(*functions));
		memset(modules + nfunctions, 0, more * sizeof(*modules));
		memset(frame_lines + nfunctions, 0, more * sizeof(*frame_lines));
		memset(frame_lens + nfunctions, 0, more * sizeof(*frame_lens));
		nfunctions = cap;
	}
	return id;
}

static void keep_frame(int id, FILE *f)
{
	frame_lines[id] = rec_end(f, &frame_lens[id]);
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
	functions[id] = fi->function ? xstrndup(fi->function, strlen(fi->function)) : NULL;
	modules[id] = fi->module ? xstrndup(fi->module, strlen(fi->module)) : NULL;
	FILE *f = rec_begin();
	fprintf(f, "{\"type\":\"frame\",\"id\":%d,\"function\":", id);
	if (fi->function) {
		put_str(f, fi->function);
	} else {
		char name[64];
		snprintf(name, sizeof(name), "[unknown] 0x%" PRIx64, fi->address);
		put_str(f, name);
	}
	put_member(f, "module", fi->module);
	put_member(f, "build_id", fi->build_id);
	fprintf(f, ",\"kind\":\"%s\"", fi->kind);
	if (fi->line > 0)
		fprintf(f, ",\"line\":%d", fi->line);
	if (!fi->function)
		fprintf(f, ",\"address\":\"0x%" PRIx64 "\"", fi->address);
	fputs("}\n", f);
	keep_frame(id, f);
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
		FILE *f = rec_begin();
		fprintf(f, "{\"type\":\"frame\",\"id\":%d,\"function\":", id);
		put_str(f, name);
		fputs(",\"kind\":\"syscall\"}\n", f);
		keep_frame(id, f);
	}
	return id;
}

bool out_frame_written(int id)
{
	return id >= 0 && id < next_frame_id && !frame_lines[id];
}

bool out_stack(const char *axis, const int *ids, size_t n, double value, double total_ns, int pid)
{
	FILE *f = rec_begin();
	fprintf(f, "{\"type\":\"stack\",\"axis\":\"%s\",\"frames\":[", axis);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%d", i ? "," : "", ids[i]);
	fprintf(f, "],\"value\":%.0f", value);
	if (total_ns >= 0)
		fprintf(f, ",\"total_ns\":%.0f", total_ns);
	if (pid > 0)
		fprintf(f, ",\"pid\":%d", pid);
	fputs("}\n", f);
	size_t len;
	char *line = rec_end(f, &len);
	/* The frame records it needs and the stack's own; a frame twice in the stack is counted twice
	 * (a slight overestimate, never an excess). */
	uint64_t need = len;
	for (size_t i = 0; i < n; i++)
		if (ids[i] >= 0 && (size_t)ids[i] < nfunctions && frame_lines[ids[i]])
			need += frame_lens[ids[i]];
	bool fits = written + need <= PTOP_STREAM_BUDGET;
	for (size_t i = 0; fits && i < n; i++)
		if (ids[i] >= 0 && (size_t)ids[i] < nfunctions && frame_lines[ids[i]]) {
			put_line(frame_lines[ids[i]], frame_lens[ids[i]]);
			free(frame_lines[ids[i]]);
			frame_lines[ids[i]] = NULL;
		}
	if (fits)
		put_line(line, len);
	free(line);
	return fits;
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
	FILE *f = rec_begin();
	fputs("{\"type\":\"summary\",\"samples\":{", f);
	for (size_t i = 0; i < naxes; i++)
		fprintf(f, "%s\"%s\":%.0f", i ? "," : "", axes[i], samples[i]);
	fputs("},\"lost\":{", f);
	for (size_t i = 0; i < naxes; i++)
		fprintf(f, "%s\"%s\":%.0f", i ? "," : "", axes[i], lost[i]);
	fputs("}", f);
	if (incomplete) {
		fputs(",\"incomplete\":{", f);
		for (size_t i = 0; i < naxes; i++)
			fprintf(f, "%s\"%s\":%.0f", i ? "," : "", axes[i], incomplete[i]);
		fputs("}", f);
	}
	if (ntotals) {
		fputs(",\"totals\":{", f);
		for (size_t i = 0; i < ntotals; i++)
			fprintf(f, "%s\"%s\":%.0f", i ? "," : "", totals[i].axis, totals[i].value);
		fputs("}", f);
	}
	if (nnot_fired) {
		fputs(",\"not_fired\":{", f);
		for (size_t i = 0; i < nnot_fired; i++) {
			fprintf(f, "%s\"%s\":", i ? "," : "", not_fired[i].axis);
			put_str(f, not_fired[i].reason);
		}
		fputs("}", f);
	}
	fprintf(f, ",\"partial\":%s", partial ? "true" : "false");
	put_member(f, "partial_reason", partial_reason);
	fprintf(f, ",\"ended_at_ms\":%" PRId64 ",\"measured_sec\":%.3f", ended_at_ms, measured_sec);
	if (nnotes) {
		fputs(",\"notes\":[", f);
		for (size_t i = 0; i < nnotes; i++) {
			if (i)
				fputc(',', f);
			put_str(f, notes[i]);
		}
		fputc(']', f);
	}
	if (extra_json)
		fputs(extra_json, f);
	fputs("}\n", f);
	rec_write(f);
}

void out_flush(void)
{
	fflush(stdout);
}
