// The AppArmor guest's one program (static, no busybox applet: busybox runs its applets without
// an execve, and AppArmor changes profile only at execve).
//   aa-probe exec PROFILE PROG ARGS...  confine PROG by PROFILE from its exec on
//   aa-probe pause                      a target that waits
//   aa-probe read PID                   one line per /proc/PID file: "<what> ok" or "<what> denied <errno>"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int set_exec(const char *profile) {
	char buf[256];
	int n = snprintf(buf, sizeof buf, "exec %s", profile);
	const char *paths[] = {"/proc/self/attr/apparmor/exec", "/proc/self/attr/exec"};
	for (int i = 0; i < 2; i++) {
		int fd = open(paths[i], O_WRONLY);
		if (fd < 0) continue;
		ssize_t w = write(fd, buf, (size_t)n);
		close(fd);
		if (w == n) return 0;
	}
	return -1;
}

static void probe(const char *pid, const char *what, int link) {
	char path[128], buf[256];
	snprintf(path, sizeof path, "/proc/%s/%s", pid, what);
	ssize_t n;
	if (link) {
		n = readlink(path, buf, sizeof buf);
	} else {
		int fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, 1);
		if (fd >= 0) close(fd);
	}
	if (n > 0) printf("%s ok\n", what);
	else printf("%s denied %d\n", what, n < 0 ? errno : 0);
}

int main(int argc, char **argv) {
	if (argc >= 4 && strcmp(argv[1], "exec") == 0) {
		if (set_exec(argv[2]) != 0) { perror("aa-probe: attr/exec"); return 1; }
		execv(argv[3], argv + 3);
		perror("aa-probe: execv");
		return 1;
	}
	if (argc == 2 && strcmp(argv[1], "pause") == 0) { pause(); return 0; }
	if (argc == 3 && strcmp(argv[1], "read") == 0) {
		probe(argv[2], "maps", 0);
		probe(argv[2], "environ", 0);
		probe(argv[2], "exe", 1);
		probe(argv[2], "ns/pid", 1);
		return 0;
	}
	fprintf(stderr, "usage: aa-probe exec PROFILE PROG ARGS... | pause | read PID\n");
	return 2;
}
