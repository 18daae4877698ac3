/* The unwinder child and its socket protocol (see unwind.h). Parent -> child messages are fixed
 * `struct umsg` records, a MAP carrying one descriptor; child -> parent messages are one
 * `struct unwound_hdr` + pcs + interpreter bytes each, then end of stream. */
#include "unwind.h"
#include "unwind_child.h"
#include "unwind_wire.h"
#include "caps.h"
#include "phase.h"
#include <linux/types.h>
#include "ptop.h"
#include "ptop.skel.h"
#include "symbolize.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int sock = -1;
static pid_t child = -1;

/* ---------------------------------------------------------------- parent side */

static int send_msg(const struct umsg *m, int fd)
{
	struct iovec iov = { (void *)m, sizeof(*m) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (fd >= 0) {
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof(*m) ? 0 : -1;
}

static void send_mapping(int pid, uint64_t start, uint64_t end, uint64_t off, int fd, bool vdso, void *arg)
{
	const uint32_t *gen = arg;
	struct umsg m = { .type = MSG_MAP, .pid = pid, .start = start, .end = end, .off = off, .flags = vdso ? UMAP_VDSO : 0,
			  .gen = *gen };
	if (send_msg(&m, fd))
		fprintf(stderr, "ptop: cannot pass a mapping of pid %d to the unwinder: %s\n", pid, strerror(errno));
}

void unwind_send_process(int pid, bool first, uint64_t read_ns, uint32_t gen)
{
	if (sock < 0)
		return;
	/* First time: a fresh process state (the pid may be reused). Later: a new mapping table; the
	 * files already known to the unwinder are kept with their parsed CFI. */
	struct umsg m = { .type = first ? MSG_GONE : MSG_MAPS_BEGIN, .pid = pid, .read_ns = read_ns, .gen = gen };
	send_msg(&m, -1);
	sym_foreach_mapping(pid, gen, send_mapping, &gen);
	if (!first) {
		struct umsg end = { .type = MSG_MAPS_END, .pid = pid, .gen = gen };
		send_msg(&end, -1);
	}
}

void unwind_send_jvm(int pid, int libfd, uint64_t start, uint64_t off, int memfd)
{
	if (sock < 0)
		return;
	struct umsg lib = { .type = MSG_JVM_LIB, .pid = pid, .start = start, .off = off };
	struct umsg mem = { .type = MSG_JVM_MEM, .pid = pid };
	if (send_msg(&lib, libfd) || send_msg(&mem, memfd))
		fprintf(stderr, "ptop: cannot pass pid %d's JVM to the unwinder: %s\n", pid, strerror(errno));
}

void unwind_stop(void)
{
	if (sock < 0)
		return;
	struct umsg m = { .type = MSG_STOP };
	send_msg(&m, -1);
}

int unwind_collect(void (*fn)(const struct unwound_hdr *, const uint64_t *, const uint8_t *, void *),
		   void (*name_fn)(uint32_t tgid, const struct unwind_name *nm, const char *text, void *arg), void *arg,
		   struct unwind_trailer *counts)
{
	memset(counts, 0, sizeof(*counts));
	if (sock < 0)
		return -1;
	static uint8_t buf[UNWIND_RESULT_MAX + 8]; /* a few KiB: no allocation that could fail */
	int rc = -1;
	bool trailer = false;
	for (;;) {
		ssize_t n = recv(sock, buf, UNWIND_RESULT_MAX + 8, 0);
		if (n == 0) {
			rc = trailer ? 0 : -1; /* without its counts the read is not complete */
			break;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		/* The child parsed target files: everything it says is checked before use. */
		struct unwound_hdr h;
		int kind = trailer ? UNWIND_REC_BAD : unwind_check_result(buf, (size_t)n, &h, counts); /* the trailer is last */
		if (kind == UNWIND_REC_BAD || (kind == UNWIND_REC_STACK && !PROBES[h.axis].unwinds))
			break;
		if (kind == UNWIND_REC_TRAILER) {
			trailer = true;
			continue;
		}
		if (kind == UNWIND_REC_NAME) {
			struct unwind_name nm;
			const char *text;
			unwind_name_decode(buf, &nm, &text);
			name_fn(h.tgid, &nm, text, arg);
			continue;
		}
		uint64_t pcs[PTOP_MAX_UNWIND_DEPTH];
		memcpy(pcs, buf + sizeof(h), h.npcs * 8ull);
		fn(&h, pcs, buf + sizeof(h) + h.npcs * 8ull, arg);
	}
	close(sock);
	sock = -1;
	int status;
	if (child > 0 && waitpid(child, &status, 0) == child && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		rc = -1;
	child = -1;
	return rc;
}

/* ---------------------------------------------------------------- child side */

static bool stopping;

/* ---------------------------------------------------------------- child side */

static void drain_socket(bool block)
{
	for (;;) {
		struct umsg m;
		struct iovec iov = { &m, sizeof(m) };
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} u;
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
		ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | (block ? 0 : MSG_DONTWAIT));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		if (n == 0)
			_exit(1); /* the parent is gone */
		int fd = -1;
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
		if (uwc_message(&m, (size_t)n, fd)) {
			stopping = true;
			return;
		}
		if (block)
			return;
	}
}

static void poll_messages(void)
{
	drain_socket(false);
}

static void send_record(const void *rec, size_t len, void *arg)
{
	(void)arg;
	if (send(sock, rec, len, MSG_NOSIGNAL) < 0)
		_exit(1);
}

/* The child parses files a target controls: if that were ever exploited, it must hold nothing
 * but its own inputs. Every descriptor inherited from the parent goes (BPF maps such as
 * `targets`, programs, links, perf events, files), except stdio, the socket and the ring buffer. */
static void close_inherited(int keep1, int keep2)
{
	int a = keep1 < keep2 ? keep1 : keep2, b = keep1 < keep2 ? keep2 : keep1;
	if (a > 3)
		syscall(SYS_close_range, 3u, (unsigned)a - 1, 0u);
	if (b > a + 1)
		syscall(SYS_close_range, (unsigned)a + 1, (unsigned)b - 1, 0u);
	syscall(SYS_close_range, (unsigned)b + 1, ~0u, 0u);
}

static void child_main(struct probes *p)
{
	char err[256];
	signal(SIGINT, SIG_IGN); /* the parent decides when the window ends */
	signal(SIGTERM, SIG_IGN);
	int rbfd = bpf_map__fd(p->skel->maps.samples);
	close_inherited(sock, rbfd);
	if (caps_drop_all(err, sizeof(err))) {
		fprintf(stderr, "ptop: unwinder: %s; refusing to parse target files with privileges\n", err);
		_exit(1);
	}
	if (uwc_init(getenv("PTOP_DEBUG") != NULL, poll_messages)) {
		fprintf(stderr, "ptop: unwinder: out of memory for its offcpu block table\n");
		_exit(1);
	}
	struct ring_buffer *rb = ring_buffer__new(rbfd, uwc_sample, NULL, NULL);
	if (!rb) {
		fprintf(stderr, "ptop: unwinder: cannot read the sample ring buffer\n");
		_exit(1);
	}
	phase("unwinder: capabilities dropped, reading samples");
	bool first = true;
	while (!stopping) {
		drain_socket(false);
		if (stopping)
			break;
		/* The programs wake this process only once the buffer is a quarter full; on a quiet one
		 * that takes seconds, and a table from the parent would overtake the samples it is for. */
		int n = ring_buffer__poll(rb, 100);
		if (n == 0)
			n = ring_buffer__consume(rb);
		if (n > 0 && first) {
			first = false;
			phase("unwinder: first samples unwound"); /* (CPU: the child's own) */
		}
	}
	ring_buffer__consume(rb);
	struct unwind_trailer t;
	uint64_t full, oom, maps;
	uwc_dropped(&t, &full, &oom, &maps);
	if (full || oom || maps)
		fprintf(stderr, "ptop: unwinder: %llu samples dropped (%llu: the aggregate was full, %llu: out of memory), "
			"%llu mappings not kept (out of memory: their samples end [truncated]); the summary counts the samples as lost\n",
			(unsigned long long)(full + oom), (unsigned long long)full, (unsigned long long)oom,
			(unsigned long long)maps);
	uwc_results(send_record, NULL);
	shutdown(sock, SHUT_WR);
	_exit(0);
}

int unwind_start(struct probes *p, char *err, size_t len)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		snprintf(err, len, "socketpair: %s", strerror(errno));
		return -1;
	}
	/* The aggregate can be large: let the child write ahead while the parent prepares. */
	int big = 4 << 20;
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	fflush(NULL);
	child = fork();
	if (child < 0) {
		snprintf(err, len, "fork: %s", strerror(errno));
		return -1;
	}
	if (child == 0) {
		close(sv[0]);
		sock = sv[1];
		child_main(p);
	}
	close(sv[1]);
	sock = sv[0];
	return 0;
}
