/* Reading the target list named on the command line. Any local user who may run ptop names that
 * path, so it is opened and read with the caller's own permissions: the effective capabilities are
 * suspended (CAP_DAC_READ_SEARCH and CAP_SYS_PTRACE would otherwise open files, and /proc entries,
 * the caller cannot), and only a regular file is read, so a FIFO or device can neither block ptop
 * nor feed it. Whatever ptop then says about the list is about bytes the caller could read. */
#include "caps.h"
#include "rootfs.h"
#include "targets.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads the list into *buf (malloc'd) while unprivileged; -1 with a reason in err. */
static int read_list(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOCTTY: a terminal is not adopted. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open target list %s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "target list %s is not a regular file", path);
		close(fd);
		return -1;
	}
	if (st.st_size > TARGETS_MAX_FILE) {
		snprintf(err, errlen, "target list %s is larger than %d bytes", path, TARGETS_MAX_FILE);
		close(fd);
		return -1;
	}
	/* One byte over the cap tells "too large" for files whose size shows only when read. */
	*buf = read_fd_all(fd, TARGETS_MAX_FILE + 1, len);
	int saved_errno = errno;
	close(fd);
	if (!*buf) {
		snprintf(err, errlen, "cannot read target list %s: %s", path, strerror(saved_errno));
		return -1;
	}
	if (*len > TARGETS_MAX_FILE) {
		snprintf(err, errlen, "target list %s is larger than %d bytes", path, TARGETS_MAX_FILE);
		free(*buf);
		*buf = NULL;
		return -1;
	}
	return 0;
}

int targets_load(const char *path, struct target_list *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	uint64_t saved = 0;
	char cerr[160];
	if (caps_suspend(&saved, cerr, sizeof(cerr))) {
		caps_resume(saved, cerr, sizeof(cerr));
		snprintf(err, errlen, "cannot read the target list with the caller's permissions: %s", cerr);
		return -1;
	}
	char *buf = NULL;
	size_t len = 0;
	int rc = read_list(path, &buf, &len, err, errlen);
	if (caps_resume(saved, cerr, sizeof(cerr))) {
		snprintf(err, errlen, "cannot restore capabilities after reading the target list: %s", cerr);
		free(buf);
		return -1;
	}
	if (rc)
		return -1;
	char perr[200];
	rc = targets_parse(buf, len, out, perr, sizeof(perr));
	if (rc)
		snprintf(err, errlen, "invalid target list %s: %s", path, perr);
	free(buf);
	return rc;
}
