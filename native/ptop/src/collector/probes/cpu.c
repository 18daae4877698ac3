/* The `cpu` probe's attach: one cpu-clock perf event per online CPU at the asked frequency, each
 * running bpf/cpu.bpf.c's program. */
#include "probes.h"
#include "ptop.skel.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int online_cpus(int *cpus, int max)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int n = 0;
	if (!f) {
		long c = sysconf(_SC_NPROCESSORS_CONF);
		for (int i = 0; i < c && n < max; i++)
			cpus[n++] = i;
		return n;
	}
	char buf[1024];
	if (fgets(buf, sizeof(buf), f)) {
		for (char *save = NULL, *tok = strtok_r(buf, ",\n", &save); tok; tok = strtok_r(NULL, ",\n", &save)) {
			int a, b;
			int k = sscanf(tok, "%d-%d", &a, &b);
			if (k == 1)
				b = a;
			if (k < 1)
				continue;
			for (int i = a; i <= b && n < max; i++)
				cpus[n++] = i;
		}
	}
	fclose(f);
	return n;
}

void cpu_attach(struct probes *p, int probe, int freq)
{
	int cpus[256];
	int n = online_cpus(cpus, 256), ok = 0, last_err = 0;
	for (int i = 0; i < n && p->nlinks < 500; i++) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.size = sizeof(attr),
			.config = PERF_COUNT_SW_CPU_CLOCK,
			.sample_freq = (unsigned)freq,
			.freq = 1,
		};
		int fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpus[i], -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			last_err = errno;
			continue;
		}
		struct bpf_link *l = bpf_program__attach_perf_event(p->skel->progs.on_cpu_sample, fd);
		if (!l) {
			last_err = errno;
			close(fd);
			continue;
		}
		probes_keep_link(p, l);
		ok++;
	}
	if (ok) {
		p->attached[probe] = true;
	} else {
		snprintf(p->reason[probe], sizeof(p->reason[0]),
			 "perf_event_open(cpu-clock) failed on every CPU: %s (needs CAP_PERFMON)", strerror(last_err));
	}
}
