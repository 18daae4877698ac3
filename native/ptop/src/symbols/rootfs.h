/* Opening a file of a target process inside its own mount namespace, through /proc/PID/root,
 * without following its symlinks out of it (openat2 RESOLVE_IN_ROOT), and never blocking on a
 * FIFO or device the target planted there. */
#ifndef PTOP_ROOTFS_H
#define PTOP_ROOTFS_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* O_PATH fd of /proc/PID/root (needs ptrace read access: open it while privileged). */
int rootfs_open_root(int pid);
/* Regular file `path` (absolute, as the target sees it) opened read-only under rootfd; -1 if absent
 * or not a regular file. max_size > 0 refuses larger files. */
int rootfs_open_file(int rootfd, const char *path, off_t max_size);
/* Same, refusing symlinks anywhere in the path (RESOLVE_NO_SYMLINKS). */
int rootfs_open_file_nofollow(int rootfd, const char *path, off_t max_size);
/* Reads a whole small fd into a NUL-terminated malloc'd buffer (at most max bytes). */
char *read_fd_all(int fd, size_t max, size_t *len);
/* Reads a /proc file into a NUL-terminated malloc'd buffer (at most max bytes). */
char *read_proc_file(const char *path, size_t max, size_t *len);
/* pid's /proc/PID/maps text (as read_proc_file; NULL with errno set) and its executable's path in
 * exe ("" when the link cannot be read): what the probes that pick files from the maps need. */
char *read_proc_maps_and_exe(int pid, size_t *len, char *exe, size_t exelen);
struct maps_line;
/* fn over each line of pid's maps (proctext_maps_foreach), its executable's path in exe first, as
 * read_proc_maps_and_exe gives them; false when the maps cannot be read. */
bool proc_maps_each(int pid, char *exe, size_t exelen, void (*fn)(const struct maps_line *l, void *arg), void *arg);
#endif
