#include "self_segment.h"
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <unistd.h>

struct self_segment self_exec_segment(void)
{
	struct self_segment s = { 0, 0, 0 };
	elf_version(EV_CURRENT);
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	size_t nph = 0;
	if (!e || elf_getphdrnum(e, &nph))
		abort();
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			s = (struct self_segment){ ph.p_vaddr & ~4095ull, ph.p_vaddr + ph.p_memsz, ph.p_offset & ~4095ull };
			break;
		}
	}
	elf_end(e);
	close(fd);
	if (s.end <= s.start)
		abort();
	return s;
}
