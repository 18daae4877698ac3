#include "elfhelper.h"
#include "allocelf.h"
#include "caps.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define HINT_MAX 256
#define ALLOC_REQUEST '\x01' /* a hint of one such byte: an allocelf.c request */
#define V8_REQUEST '\x02'    /* a hint of one such byte: a v8elf.c request */

static int sock = -1;
static pid_t child;

/* The file mapped private (copy-on-write: libelf may convert data in place, never into the file):
 * a parser faults in only the pages it touches (a node binary's symbol tables and the values they
 * point at, a few MB of 43-100 MB). Reading the file whole took 0.17 s for Debian's arm64
 * libnode.so.108 on the host, and in a TCG guest on a loaded host more than the 5 s the parent
 * waits for an answer, so node's JS frames were off there. */
static char *map_bounded(int fd, size_t *len)
{
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 || (uint64_t)st.st_size > PYELF_MAX_FILE)
		return NULL;
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	*len = (size_t)st.st_size;
	return p;
}

/* A file its owner shrinks while it is parsed leaves mapped pages past its end: touching one raises
 * SIGBUS. The request then gets the answer of a file that is not one (all zero), not a dead helper. */
static sigjmp_buf bus_jump;
static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_jump, 1);
}

/* The request's analysis over the mapped file into out (size bytes, zeroed first and on SIGBUS). */
static void analyze(char kind, const char *hint, const char *buf, size_t len, void *out, size_t size)
{
	memset(out, 0, size);
	if (!buf)
		return;
	if (sigsetjmp(bus_jump, 1)) {
		memset(out, 0, size);
		return;
	}
	if (kind == ALLOC_REQUEST)
		alloc_elf_analyze(buf, len, out);
	else if (kind == V8_REQUEST)
		v8_elf_analyze(buf, len, out);
	else
		py_elf_analyze(buf, len, hint, out);
}

static void serve(void)
{
	for (;;) {
		char hint[HINT_MAX + 1];
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct iovec iov = { hint, HINT_MAX };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
		ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
		if (n <= 0)
			_exit(0);
		hint[n] = 0;
		int fd = -1;
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
		size_t len = 0;
		char *buf = fd >= 0 ? map_bounded(fd, &len) : NULL;
		if (fd >= 0)
			close(fd);
		union {
			struct alloc_elf_info alloc; /* the alloc axis: where the allocation entry points are */
			struct v8_elf_info v8;       /* the V8 walker: a node binary's v8dbg_ layout */
			struct py_elf_info py;       /* the CPython walker */
		} out;
		size_t size = hint[0] == ALLOC_REQUEST ? sizeof(out.alloc) : hint[0] == V8_REQUEST ? sizeof(out.v8) : sizeof(out.py);
		analyze(hint[0], hint, buf, len, &out, size);
		if (buf)
			munmap(buf, len);
		if (send(sock, &out, size, MSG_NOSIGNAL) != (ssize_t)size)
			_exit(0);
	}
}

int elfhelper_start(char *err, size_t len)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		snprintf(err, len, "socketpair: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	child = fork();
	if (child < 0) {
		snprintf(err, len, "fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "ptop-pyhelper");
		close(sv[0]);
		/* Nothing of the parent's but stderr and this socket: stdout is the parent's stream. */
		int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 1);
		}
		sock = sv[1];
		for (int fd = 3; fd < 1024; fd++)
			if (fd != sock)
				close(fd);
		char msg[256];
		if (caps_drop_all(msg, sizeof(msg))) {
			fprintf(stderr, "ptop: ELF helper: %s; it stops without parsing anything\n", msg);
			_exit(1);
		}
		struct sigaction bus = { .sa_handler = on_sigbus };
		sigaction(SIGBUS, &bus, NULL);
		serve();
		_exit(0);
	}
	close(sv[1]);
	sock = sv[0];
	return 0;
}

/* One request: the hint and the fd out, a reply of exactly `size` bytes back within 5 s. */
static int ask(int fd, const char *hint, void *out, size_t size)
{
	if (sock < 0)
		return -1;
	char cbuf[CMSG_SPACE(sizeof(int))];
	memset(cbuf, 0, sizeof(cbuf));
	struct iovec iov = { (void *)hint, strlen(hint) + 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0)
		goto dead;
	/* A helper stuck on a hostile file must not stall the window: 5 s, then it is gone. */
	struct pollfd pf = { sock, POLLIN, 0 };
	if (poll(&pf, 1, 5000) != 1)
		goto dead;
	ssize_t n = recv(sock, out, size, 0);
	if (n != (ssize_t)size)
		goto dead;
	return 0;
dead:
	fprintf(stderr, "ptop: the ELF helper stopped answering; Python frames and alloc probes are off from here\n");
	elfhelper_stop();
	return -1;
}

int elfhelper_alloc(int fd, struct alloc_elf_info *out)
{
	const char hint[2] = { ALLOC_REQUEST, 0 };
	if (ask(fd, hint, out, sizeof(*out)))
		return -1;
	out->found &= (1u << AF__COUNT) - 1;
	return 0;
}

int elfhelper_v8(int fd, struct v8_elf_info *out)
{
	const char hint[2] = { V8_REQUEST, 0 };
	if (ask(fd, hint, out, sizeof(*out)))
		return -1;
	if (out->status < V8ELF_NOT_V8 || out->status > V8ELF_UNSUPPORTED)
		out->status = V8ELF_UNSUPPORTED;
	return 0;
}

int elfhelper_analyze(int fd, const char *name_hint, struct py_elf_info *out)
{
	char hint[HINT_MAX];
	snprintf(hint, sizeof(hint), "%s", name_hint ? name_hint : "");
	if (hint[0] == ALLOC_REQUEST || hint[0] == V8_REQUEST)
		hint[0] = '?';
	if (ask(fd, hint, out, sizeof(*out)))
		return -1;
	out->version_text[sizeof(out->version_text) - 1] = 0;
	if (out->status < PYELF_NOT_PYTHON || out->status > PYELF_UNRECOGNISED)
		out->status = PYELF_UNRECOGNISED;
	return 0;
}

void elfhelper_stop(void)
{
	if (sock >= 0)
		close(sock);
	sock = -1;
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = 0;
	}
}
