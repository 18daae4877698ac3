#include "execmaps.h"
#include "proctext.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/ioctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* From the 6.11 UAPI (linux/fs.h), which Debian 12's headers predate. Fields past `size` that an
 * older 6.11+ kernel does not know are refused by it (E2BIG), never misread. */
struct ptop_procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start;
	uint64_t vma_end;
	uint64_t vma_flags;
	uint64_t vma_page_size;
	uint64_t vma_offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t vma_name_size;
	uint32_t build_id_size;
	uint64_t vma_name_addr;
	uint64_t build_id_addr;
};
#define PTOP_PROCMAP_QUERY _IOWR('f', 17, struct ptop_procmap_query)
#define PTOP_PROCMAP_QUERY_VMA_EXECUTABLE 0x04
#define PTOP_PROCMAP_QUERY_COVERING_OR_NEXT_VMA 0x10
#define EXECMAPS_MAX (1u << 20) /* more executable mappings than any process has: stop there */

/* FNV-1a over each executable mapping's range, file offset, inode and device, then their count
 * (the files are told apart by device and inode). */
#define FNV_OFFSET 1469598103934665603ull

static void fnv(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		*h = (*h ^ b[i]) * 1099511628211ull;
}

static void fold_mapping(uint64_t *h, uint64_t start, uint64_t end, uint64_t off, uint64_t inode, uint64_t maj, uint64_t min)
{
	uint64_t fields[6] = { start, end, off, inode, maj, min };
	fnv(h, fields, sizeof(fields));
}

struct text_fp {
	uint64_t h, n;
};

static void fold_line(const struct maps_line *l, void *arg)
{
	struct text_fp *f = arg;
	if (l->perms[2] != 'x')
		return;
	fold_mapping(&f->h, l->start, l->end, l->off, l->inode, l->dev_major, l->dev_minor);
	f->n++;
}

uint64_t execmaps_fingerprint_text(const char *maps, size_t len)
{
	struct text_fp f = { FNV_OFFSET, 0 };
	proctext_maps_foreach(maps, len, fold_line, &f);
	fnv(&f.h, &f.n, sizeof(f.n));
	return f.h;
}

int execmaps_fingerprint(int pid, uint64_t *fp)
{
	static int unsupported;
	if (unsupported)
		return -1;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	uint64_t h = FNV_OFFSET, addr = 0, n = 0;
	int rc = 0;
	for (; n < EXECMAPS_MAX; n++) {
		struct ptop_procmap_query q;
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.query_flags = PTOP_PROCMAP_QUERY_VMA_EXECUTABLE | PTOP_PROCMAP_QUERY_COVERING_OR_NEXT_VMA;
		q.query_addr = addr;
		if (ioctl(fd, PTOP_PROCMAP_QUERY, &q) != 0) {
			if (errno != ENOENT) { /* ENOENT: no executable mapping at or after addr, the end */
				unsupported = errno == ENOTTY || errno == EINVAL || errno == E2BIG;
				rc = -1;
			}
			break;
		}
		fold_mapping(&h, q.vma_start, q.vma_end, q.vma_offset, q.inode, q.dev_major, q.dev_minor);
		if (q.vma_end <= addr) { /* never goes backwards: a kernel that did would loop */
			rc = -1;
			break;
		}
		addr = q.vma_end;
	}
	close(fd);
	fnv(&h, &n, sizeof(n));
	*fp = h;
	return n == EXECMAPS_MAX ? -1 : rc;
}
