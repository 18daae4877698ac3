#include "rootfs.h"
#include "proctext.h"
#include "strtab.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int rootfs_open_root(int pid)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/root", pid);
	return open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static int open_in_root(int rootfd, const char *path, off_t max_size, unsigned long long extra)
{
	if (rootfd < 0 || !path || path[0] != '/')
		return -1;
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | extra,
	};
	int fd = (int)syscall(SYS_openat2, rootfd, path + 1, &how, sizeof(how));
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (max_size > 0 && st.st_size > max_size)) {
		close(fd);
		return -1;
	}
	return fd;
}

int rootfs_open_file(int rootfd, const char *path, off_t max_size)
{
	return open_in_root(rootfd, path, max_size, 0);
}

int rootfs_open_file_nofollow(int rootfd, const char *path, off_t max_size)
{
	return open_in_root(rootfd, path, max_size, RESOLVE_NO_SYMLINKS);
}

char *read_fd_all(int fd, size_t max, size_t *len)
{
	size_t cap = 4096 < max ? 4096 : max, n = 0;
	char *buf = xcalloc(cap + 1, 1);
	for (;;) {
		if (n == cap) {
			if (cap >= max)
				break; /* truncated at the cap */
			cap = cap * 2 < max ? cap * 2 : max;
			buf = xrealloc(buf, cap + 1, 1);
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			break;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

char *read_proc_file(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *b = read_fd_all(fd, max, len);
	close(fd);
	return b;
}

char *read_proc_maps_and_exe(int pid, size_t *len, char *exe, size_t exelen)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	ssize_t el = exelen ? readlink(path, exe, exelen - 1) : -1;
	if (exelen)
		exe[el > 0 ? el : 0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	return read_proc_file(path, 32u << 20, len);
}

bool proc_maps_each(int pid, char *exe, size_t exelen, void (*fn)(const struct maps_line *l, void *arg), void *arg)
{
	size_t len;
	char *maps = read_proc_maps_and_exe(pid, &len, exe, exelen);
	if (!maps)
		return false;
	proctext_maps_foreach(maps, len, fn, arg);
	free(maps);
	return true;
}
