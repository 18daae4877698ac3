/* The probes' names as the stream and the command line spell them (probes.h P_*): kept apart from
 * probes.c so that code without the BPF object (output.c, the unit harnesses) can name a probe. */
#include "probes.h"

static const char *const NAMES[P__COUNT] = { "cpu", "offcpu", "syscalls", "locks", "alloc" };

const char *probe_name(int i)
{
	return i >= 0 && i < P__COUNT ? NAMES[i] : "?";
}
