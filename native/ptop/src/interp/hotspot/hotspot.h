/* Java frames for ptop's stacks, the parent's side (README "Java frames"):
 *   hs_attach()   privileged, when a target process is found: a process mapping libjvm.so gets its
 *                 /proc/PID/mem (the kernel's ptrace check is made at open) and that file opened,
 *                 both passed to the unwinder child, which walks Java frames from each snapshot
 *                 (hs_child.h) and writes them as an INTERP_HOTSPOT section;
 *   hs_merge()    after the capability drop: reads the VM's description and the methods through
 *                 the same descriptors and puts the Java frames where their pcs stand;
 *   hs_count(), hs_notes()  what could not be walked or named, for the summary's notes. */
#ifndef PTOP_HOTSPOT_H
#define PTOP_HOTSPOT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* again: a later look at a known process (its mappings changed): only one not attached yet is
 * (a JVM found before its launcher mapped libjvm.so). */
void hs_attach(int pid, bool again);
/* native_ids: the user stack root first (n of them, the leaf last); writes at most cap ids to out. */
size_t hs_merge(int pid, const void *section, size_t len, const int *native_ids, size_t n, int *out, size_t cap);
/* A method's name (len checked bytes) as the unwinder read it during the window, with the stamp its
 * walk recorded: used for that method's frames with that stamp instead of a read at the end. */
void hs_learn_name(int pid, uint64_t method, uint32_t stamp, const char *text, size_t len);
/* One cpu stack of pid with value samples, its section (or none): counted for the notes. */
void hs_count(int pid, const void *section, size_t len, double value);
size_t hs_notes(const char **notes, size_t cap);
#endif
