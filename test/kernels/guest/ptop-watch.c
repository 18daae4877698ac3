/* ptop-watch: the two things a busybox guest cannot do for the kernel matrix (test/kernels).
 *
 *   ptop-watch grant FILE
 *     Writes ptop's five file capabilities (BPF, PERFMON, SYS_PTRACE, DAC_READ_SEARCH, SYS_ADMIN,
 *     +ep) as a v2 security.capability xattr: busybox has no setcap, and a cpio archive carries
 *     no xattrs. FILE must be on a file system with security xattrs (tmpfs).
 *
 *   ptop-watch nobody PROGRAM ARGS...
 *     Execs PROGRAM as uid/gid 65534 without supplementary groups (busybox's setpriv has no --reuid).
 *
 *   ptop-watch run STATUS_OUT -- PROGRAM ARGS...
 *     Runs PROGRAM as uid/gid 65534 with no supplementary groups (like `setpriv --reuid=65534`),
 *     waits for it to exit WITHOUT reaping it, and writes the capability lines of its
 *     /proc/PID/status twice to STATUS_OUT: "start" (the first reading after exec that shows a
 *     permitted set, polled every millisecond) and "end" (the zombie: a process's credentials
 *     stay until it is reaped, so this is what it held when it exited). Exits with PROGRAM's exit code.
 *     The host-side test checks that ptop ran with the five capabilities and exited with none
 *     and no_new_privs set.
 *
 * Static, no libcap: built for every guest architecture by test/kernels/initramfs.ts. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

static int grant(const char *file)
{
	/* struct vfs_cap_data, revision 2, little-endian: magic_etc then {permitted, inheritable} x 2. */
	const uint32_t lo = (1u << 2) | (1u << 19) | (1u << 21); /* DAC_READ_SEARCH, SYS_PTRACE, SYS_ADMIN */
	const uint32_t hi = (1u << (38 - 32)) | (1u << (39 - 32)); /* PERFMON, BPF */
	uint32_t v[5] = { 0x02000000u | 0x1u /* VFS_CAP_FLAGS_EFFECTIVE */, lo, 0, hi, 0 };
	if (setxattr(file, "security.capability", v, sizeof(v), 0) != 0) {
		fprintf(stderr, "ptop-watch: setxattr %s: %s\n", file, strerror(errno));
		return 1;
	}
	return 0;
}

static void copy_status(FILE *out, const char *label, int pid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(out, "%s error %s\n", label, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Cap", 3) || !strncmp(line, "NoNewPrivs", 10) || !strncmp(line, "Uid", 3))
			fprintf(out, "%s %s", label, line);
	fclose(f);
}

static int drop_to_nobody(void)
{
	if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
		perror("ptop-watch: dropping to uid 65534");
		return -1;
	}
	return 0;
}

static int run(const char *status_out, char **argv)
{
	int ready[2];
	if (pipe2(ready, O_CLOEXEC) != 0)
		return 1;
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(ready[0]);
		if (drop_to_nobody())
			_exit(127);
		execv(argv[0], argv); /* closes `ready` on success: the parent knows exec happened */
		perror("ptop-watch: exec");
		_exit(127);
	}
	close(ready[1]);
	char c;
	while (read(ready[0], &c, 1) < 0 && errno == EINTR)
		;
	close(ready[0]);
	FILE *out = fopen(status_out, "w");
	if (!out)
		return 1;
	/* The exec'd image's credentials are in place once the pipe closed. Poll until its permitted
	 * set shows (a starved guest may first run this after ptop cleared its effective set around
	 * a read), or until it exits: the first status with CapPrm != 0 is "start". */
	char first[4096] = "";
	for (int tries = 0; tries < 20000; tries++) {
		char path[64], line[256];
		size_t used = 0;
		int prm = 0;
		snprintf(path, sizeof(path), "/proc/%d/status", pid);
		FILE *f = fopen(path, "r");
		if (!f)
			break;
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "CapPrm:", 7) && strtoull(line + 7, NULL, 16) != 0)
				prm = 1;
			if ((!strncmp(line, "Cap", 3) || !strncmp(line, "NoNewPrivs", 10) || !strncmp(line, "Uid", 3)) &&
			    used + strlen(line) + 8 < sizeof(first))
				used += (size_t)sprintf(first + used, "start %s", line);
		}
		fclose(f);
		siginfo_t gone;
		memset(&gone, 0, sizeof(gone));
		if (prm || (waitid(P_PID, pid, &gone, WEXITED | WNOHANG | WNOWAIT) == 0 && gone.si_pid == pid))
			break;
		usleep(1000);
	}
	fputs(first, out);
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	while (waitid(P_PID, pid, &si, WEXITED | WNOWAIT) != 0 && errno == EINTR)
		;
	copy_status(out, "end", pid);
	fclose(out);
	int st = 0;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "grant"))
		return grant(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "nobody")) {
		if (drop_to_nobody())
			return 127;
		execv(argv[2], argv + 2);
		perror("ptop-watch: exec");
		return 127;
	}
	if (argc >= 5 && !strcmp(argv[1], "run") && !strcmp(argv[3], "--"))
		return run(argv[2], argv + 4);
	fprintf(stderr, "usage: ptop-watch grant FILE | ptop-watch nobody PROGRAM ARGS... | ptop-watch run STATUS_OUT -- PROGRAM ARGS...\n");
	return 2;
}
