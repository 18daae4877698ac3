/* ptop's own vDSO image, in a memfd for the unwinder (vdso.h). */
#include "vdso.h"
#include "proctext.h"
#include "rootfs.h"
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

struct range {
	uint64_t start, end;
};

static void vdso_line(const struct maps_line *l, void *arg)
{
	if (l->path_len == 6 && memcmp(l->path, "[vdso]", 6) == 0)
		*(struct range *)arg = (struct range){ l->start, l->end };
}

/* The [vdso] line of ptop's own maps: where its image starts and how long it is. */
static bool own_vdso(uint64_t *start, uint64_t *len)
{
	size_t n = 0;
	char *maps = read_proc_file("/proc/self/maps", 1u << 20, &n);
	struct range r = { 0, 0 };
	if (maps)
		proctext_maps_foreach(maps, n, vdso_line, &r);
	free(maps);
	*start = r.start;
	*len = r.end - r.start;
	return r.end > r.start;
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
