/* libFuzzer harness for the /proc text parsers (comm, cmdline, status NSpid, the pod's namespace
 * file), which run on target-controlled bytes while ptop holds its capabilities. Every input goes
 * through all four; the results must keep their promises. */
#include "proctext.h"
#include "targets.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
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
	char *ns = proctext_k8s_namespace(buf, size);
	if (ns && !targets_namespace_valid(ns))
		abort();
	free(ns);
	return 0;
}
