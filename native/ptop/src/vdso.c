/* ptop's own vDSO image, in a memfd for the unwinder (vdso.h). */
#include "vdso.h"
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

/* The [vdso] line of ptop's own maps: where its image starts and how long it is. */
static bool own_vdso(uint64_t *start, uint64_t *len)
{
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return false;
	char line[512];
	bool found = false;
	unsigned long long s, e;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " [vdso]") && sscanf(line, "%llx-%llx", &s, &e) == 2 && e > s;
	fclose(f);
	if (found) {
		*start = s;
		*len = e - s;
	}
	return found;
}

int vdso_fd(uint64_t len)
{
	static int fd = -2;
	static uint64_t size;
	if (fd == -2) {
		fd = -1;
		uint64_t start;
		unsigned long ehdr = getauxval(AT_SYSINFO_EHDR);
		if (ehdr && own_vdso(&start, &size) && start == ehdr) {
			int m = memfd_create("ptop-vdso", MFD_CLOEXEC | MFD_ALLOW_SEALING);
			if (m >= 0 && write(m, (const void *)(uintptr_t)start, size) == (ssize_t)size &&
			    fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) == 0)
				fd = m;
			else if (m >= 0)
				close(m);
		}
		if (getenv("PTOP_DEBUG"))
			fprintf(stderr, "ptop: vdso: %s (%llu bytes)\n", fd >= 0 ? "own image passed to the unwinder" : "not found",
				(unsigned long long)size);
	}
	return fd >= 0 && len == size ? fd : -1;
}
