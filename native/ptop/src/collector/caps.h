#ifndef PTOP_CAPS_H
#define PTOP_CAPS_H
#include <stddef.h>
#include <stdint.h>

/* 0 when CapEff holds all five capabilities ptop needs; otherwise -1 and `missing` lists them
 * with what each one costs. */
int caps_check(char *missing, size_t len);
/* Drops every capability (effective, permitted, inheritable, ambient; bounding where allowed)
 * and sets no_new_privs. 0 when CapEff and CapPrm read back as zero. */
int caps_drop_all(char *err, size_t len);
/* CapEff of this process as read from /proc/self/status (or UINT64_MAX). */
uint64_t caps_effective(void);
/* Clears the effective set (permitted stays) so that what follows is done with the caller's own
 * permissions, as if ptop had none: no CAP_DAC_READ_SEARCH, no CAP_SYS_PTRACE. `saved` receives
 * the effective set for caps_resume. 0 when CapEff reads back as zero. */
int caps_suspend(uint64_t *saved, char *err, size_t len);
int caps_resume(uint64_t saved, char *err, size_t len);
#endif
