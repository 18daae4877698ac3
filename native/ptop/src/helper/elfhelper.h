/* ptop's unprivileged helper: a child forked at start that drops every capability at once and
 * then, for the privileged parent, recognises CPython interpreters (and finds allocation entry
 * points: allocelf.c) from ELF files the parent
 * opened (passed as fds). The parent needs the answer during the window, while it still holds
 * its capabilities, so the parsing of those target-controlled bytes happens here; the parent
 * receives one fixed-size struct and trusts from it only a version number (to choose a row of
 * its own offset table) and addresses the BPF walker reads through bpf_probe_read_user. */
#ifndef PTOP_ELFHELPER_H
#define PTOP_ELFHELPER_H
#include "allocelf.h"
#include "pyelf.h"
#include "v8elf.h"

/* Forks the helper; call before any BPF object or target file is opened (the child closes every
 * fd but its socket anyway). 0 on success; on failure Python frames are simply unavailable. */
int elfhelper_start(char *err, size_t len);
/* Asks the helper about an ELF file. 0 when it answered. */
int elfhelper_analyze(int fd, const char *name_hint, struct py_elf_info *out);
/* Asks the helper where an ELF file's allocation entry points are (alloc axis). 0 when it answered;
 * the parent trusts from the answer only offsets it hands to the kernel as uprobe positions. */
int elfhelper_alloc(int fd, struct alloc_elf_info *out);
/* Asks the helper for a node binary's V8 layout (v8elf.c). 0 when it answered; the parent checks
 * the layout again (v8_layout_check) before the walker uses it. */
int elfhelper_v8(int fd, struct v8_elf_info *out);
void elfhelper_stop(void);
#endif
