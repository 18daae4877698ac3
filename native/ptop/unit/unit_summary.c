/* The summary record as ptop writes it, for the attached-but-never-ran report (probe_ran.c,
 * output.c): `unit_summary RAN MEASURED` takes the cpu, offcpu and syscalls probes (plus locks) as
 * attached, the first three having run when their letter is in RAN ("c", "o", "s"), and prints the
 * summary line of a window of MEASURED seconds. test/live/ptop-unit.test.ts checks it against the
 * protocol schema (src/protocol/profile-stream.ts). A live kernel cannot be made to skip an
 * attached program on demand; this is the rest of that path, in the shipped code. */
#include "output.h"
#include "probe_ran.h"
#include "probes.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: unit_summary RAN MEASURED\n");
		return 2;
	}
	const char *letters = "cos";
	double measured = atof(argv[2]);
	static char reasons[P__COUNT][512];
	const char *axes[P__COUNT];
	double zeros[P__COUNT] = { 0 };
	size_t na = 0;
	for (int i = 0; i < P__COUNT; i++) {
		if (i == P_ALLOC)
			continue;
		axes[na++] = probe_name(i);
		bool ran = i < 3 && strchr(argv[1], letters[i]) != NULL;
		if (probe_never_ran(i, true, ran, measured, reasons[i], sizeof(reasons[i])))
			out_summary_not_fired(probe_name(i), reasons[i]);
	}
	out_summary(axes, zeros, zeros, zeros, na, false, NULL, 1700000000000, measured, NULL, 0, NULL);
	out_flush();
	return 0;
}
