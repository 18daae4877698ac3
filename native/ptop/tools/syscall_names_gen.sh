#!/bin/sh
# Writes src/out/syscall_names.c (syscall number -> name for the `syscalls` axis) from the Linux UAPI
# headers: asm/unistd_64.h for x86_64, asm-generic/unistd.h for arm64 (Debian's linux-libc-dev
# paths by default). Run from native/ptop after a kernel-headers update:
#   sh tools/syscall_names_gen.sh > src/out/syscall_names.c
set -eu

# table HEADER-FILE: "N name" lines, numerically sorted, read from the header's text: every
# `#define __NR_name N` and `#define __NR3264_name N` with a literal number, the first definition of
# a number winning (asm-generic lists the variant before its #else fallback: sync_file_range2);
# `__NR_syscalls` is the count, not a call.
table() {
	sed -n 's/^#define __NR\(3264\)\{0,1\}_\([a-z0-9_]*\)[ \t]\{1,\}\([0-9]\{1,\}\)$/\3 \2/p' "$1" |
		awk '$2 != "syscalls" && !seen[$1]++' | sort -n -s -k1,1
}

emit() { # emit "N name" lines as designated initializers, NAMES sized one past the highest
	awk 'BEGIN { n = 0 } { line[NR] = $0; if ($1 + 1 > n) n = $1 + 1 }
	     END { printf "static const char *const NAMES[%d] = {\n", n; for (i = 1; i <= NR; i++) { split(line[i], f, " "); printf "\t[%s] = \"%s\",\n", f[1], f[2] } print "};" }'
}

cat <<'HEAD'
/* Syscall number -> name for the `syscalls` axis. Generated from the Linux UAPI headers
 * (asm/unistd_64.h for x86_64, asm-generic/unistd.h for arm64) and committed: a fixed table. */
#include "syscall_names.h"
#include <stddef.h>

#if defined(__x86_64__)
HEAD
table "${X86_64_UNISTD:-/usr/include/x86_64-linux-gnu/asm/unistd_64.h}" | emit
echo '#elif defined(__aarch64__)'
table "${GENERIC_UNISTD:-/usr/include/asm-generic/unistd.h}" | emit
cat <<'TAIL'
#else
static const char *const NAMES[1] = { NULL };
#endif

const char *syscall_name(unsigned nr)
{
	if (nr < sizeof(NAMES) / sizeof(NAMES[0]) && NAMES[nr])
		return NAMES[nr];
	return NULL;
}
TAIL
