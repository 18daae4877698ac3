#include "uprobe_link.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* BPF_LINK_CREATE's uprobe_multi member (include/uapi/linux/bpf.h, Linux 6.6): Debian 12's libbpf
 * (1.1) and UAPI headers predate it, so the attribute is laid out here. */
struct link_create_uprobe_multi {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, multi_flags, pid;
};

int uprobe_link_attach(int prog_fd, int pid, const char *path, const uint64_t *offsets, const uint64_t *cookies,
		       uint32_t cnt)
{
	struct link_create_uprobe_multi a;
	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)prog_fd;
	a.attach_type = PTOP_BPF_TRACE_UPROBE_MULTI;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)offsets;
	a.cookies = (uint64_t)(uintptr_t)cookies;
	a.cnt = cnt;
	a.pid = (uint32_t)pid;
	return (int)syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
}

/* libbpf's own probe (1.3, probe_uprobe_multi_link): a trivial program; a link on "/" fails with
 * EBADF where multi-uprobes exist, and with pid -1 with EINVAL where their pid filter is fixed. */
bool uprobe_link_supported(void)
{
	static int known = -1;
	if (known >= 0)
		return known;
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = PTOP_BPF_TRACE_UPROBE_MULTI);
	int prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "ptop_probe", "GPL", insns, 2, &opts);
	known = 0;
	if (prog < 0)
		return false;
	uint64_t offset = 0;
	int fd = uprobe_link_attach(prog, 0, "/", &offset, NULL, 1);
	int e = errno;
	if (fd >= 0)
		close(fd);
	else if (e == EBADF) {
		fd = uprobe_link_attach(prog, -1, "/", &offset, NULL, 1);
		e = errno;
		if (fd >= 0)
			close(fd);
		known = fd < 0 && e == EINVAL;
	}
	close(prog);
	return known;
}

struct release_work {
	struct held_link *links;
	size_t n;
	atomic_size_t next;
};

static void *release_some(void *arg)
{
	struct release_work *w = arg;
	for (size_t i; (i = atomic_fetch_add(&w->next, 1)) < w->n;) {
		if (w->links[i].link)
			bpf_link__destroy(w->links[i].link);
		else if (w->links[i].fd >= 0)
			close(w->links[i].fd);
	}
	return NULL;
}

/* Enough threads that the grace periods the releases wait for overlap; each thread is a small stack
 * that only closes descriptors. */
#define RELEASE_THREADS 64

void held_links_release(struct held_link *links, size_t n)
{
	struct release_work w = { .links = links, .n = n };
	atomic_init(&w.next, 0);
	pthread_t t[RELEASE_THREADS];
	size_t started = 0;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (; started < RELEASE_THREADS && started + 1 < n; started++)
		if (pthread_create(&t[started], &attr, release_some, &w))
			break;
	pthread_attr_destroy(&attr);
	release_some(&w); /* this thread too: with no thread started, it releases them all */
	for (size_t i = 0; i < started; i++)
		pthread_join(t[i], NULL);
}
