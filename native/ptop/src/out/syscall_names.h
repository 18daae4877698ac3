#ifndef PTOP_SYSCALL_NAMES_H
#define PTOP_SYSCALL_NAMES_H
/* Name of syscall nr on the architecture ptop was built for, or NULL. */
const char *syscall_name(unsigned nr);
#endif
