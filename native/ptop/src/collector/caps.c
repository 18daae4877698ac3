#include "caps.h"
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static const struct {
	int cap;
	const char *name;
	const char *cost;
} NEEDED[] = {
	{ CAP_BPF, "CAP_BPF", "cannot load the BPF programs or create maps" },
	{ CAP_PERFMON, "CAP_PERFMON", "cannot open cpu-clock perf events or attach tracing programs" },
	{ CAP_SYS_PTRACE, "CAP_SYS_PTRACE", "cannot read /proc/PID/exe, maps and root of other users' processes" },
	{ CAP_DAC_READ_SEARCH, "CAP_DAC_READ_SEARCH", "cannot open target binaries and perf maps it may not read" },
	{ CAP_SYS_ADMIN, "CAP_SYS_ADMIN", "cannot read /proc/PID/map_files or use BPF features that still require it" },
};

static uint64_t status_hex(const char *field)
{
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return UINT64_MAX;
	char line[256];
	uint64_t v = UINT64_MAX;
	size_t fl = strlen(field);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, field, fl) == 0 && line[fl] == ':') {
			unsigned long long x;
			if (sscanf(line + fl + 1, "%llx", &x) == 1)
				v = x;
			break;
		}
	}
	fclose(f);
	return v;
}

uint64_t caps_effective(void)
{
	return status_hex("CapEff");
}

int caps_check(char *missing, size_t len)
{
	uint64_t eff = caps_effective();
	size_t off = 0;
	missing[0] = 0;
	for (size_t i = 0; i < sizeof(NEEDED) / sizeof(NEEDED[0]); i++) {
		if (eff != UINT64_MAX && (eff >> NEEDED[i].cap) & 1)
			continue;
		int n = snprintf(missing + off, len - off, "%s%s (%s)", off ? "; " : "", NEEDED[i].name, NEEDED[i].cost);
		if (n > 0 && (size_t)n < len - off)
			off += (size_t)n;
	}
	return off ? -1 : 0;
}

int caps_drop_all(char *err, size_t len)
{
	/* Bounding set: needs CAP_SETPCAP, which ptop does not carry; without it the bounding set
	 * cannot grow privileges anyway once no_new_privs is set, so EPERM is expected here. */
	for (int c = 0; c <= 63; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno == EINVAL)
			break;
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data)) {
		snprintf(err, len, "capset to zero failed: %s", strerror(errno));
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		snprintf(err, len, "prctl(PR_SET_NO_NEW_PRIVS) failed: %s", strerror(errno));
		return -1;
	}
	if (status_hex("CapEff") != 0 || status_hex("CapPrm") != 0 || status_hex("CapInh") != 0) {
		snprintf(err, len, "capabilities still present after dropping them");
		return -1;
	}
	return 0;
}

/* capget/capset on the effective set only: permitted stays, so the capabilities can come back. */
static int effective_set(uint64_t eff, char *err, size_t len)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2];
	if (syscall(SYS_capget, &hdr, data)) {
		snprintf(err, len, "capget failed: %s", strerror(errno));
		return -1;
	}
	data[0].effective = (uint32_t)eff;
	data[1].effective = (uint32_t)(eff >> 32);
	if (syscall(SYS_capset, &hdr, data)) {
		snprintf(err, len, "capset of the effective set failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int caps_suspend(uint64_t *saved, char *err, size_t len)
{
	*saved = caps_effective();
	if (*saved == UINT64_MAX) {
		snprintf(err, len, "cannot read CapEff from /proc/self/status");
		return -1;
	}
	if (effective_set(0, err, len))
		return -1;
	if (caps_effective() != 0) {
		snprintf(err, len, "capabilities still effective after clearing the effective set");
		return -1;
	}
	return 0;
}

int caps_resume(uint64_t saved, char *err, size_t len)
{
	return effective_set(saved, err, len);
}
