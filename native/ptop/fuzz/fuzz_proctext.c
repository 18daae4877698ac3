/* libFuzzer harness for the /proc text parsers (comm, cmdline, status NSpid and Uid, maps, the
 * pod's namespace file), which run on target-controlled bytes while ptop holds its capabilities
 * (a process names itself, rewrites its argv, and chooses the paths it maps). Every input goes
 * through all of them; the results must keep their promises. */
#include "proctext.h"
#include "targets.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_mapping(const struct maps_line *l, void *arg)
{
	const char *buf = arg;
	(void)buf;
	if (l->start >= l->end || l->dev_major > 0xfff || l->dev_minor > 0xfffff || strlen(l->perms) != 4)
		abort();
	/* the path lies inside the line it came from and holds no line break */
	if (l->path_len && memchr(l->path, '\n', l->path_len))
		abort();
	volatile char sink = 0;
	for (size_t i = 0; i < l->path_len; i++)
		sink ^= l->path[i];
	(void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly size bytes: ASan reports any read past the end (no terminator to lean on). */
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	char comm[17];
	memset(comm, 'x', sizeof(comm));
	proctext_comm(buf, size, comm, sizeof(comm));
	if (!memchr(comm, 0, sizeof(comm)) || strchr(comm, '\n'))
		abort();
	(void)proctext_argv0_is(buf, size, "api");
	(void)proctext_argv0_is(buf, size, comm);
	int nspid = proctext_nspid(buf, size, -7);
	if (nspid != -7 && nspid <= 0)
		abort();
	long long euid = proctext_euid(buf, size);
	if (euid < -1 || euid >= 0xffffffffll)
		abort();
	proctext_maps_foreach(buf, size, check_mapping, buf);
	struct maps_line l;
	if (proctext_maps_line(buf, size, &l) == 0)
		check_mapping(&l, buf);
	char *ns = proctext_k8s_namespace(buf, size);
	if (ns && !targets_namespace_valid(ns))
		abort();
	free(ns);
	free(buf);
	return 0;
}
