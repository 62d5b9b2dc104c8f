/* Arrays that grow with the program (per op, per edge, per task) and are written whole: their pages are
 * faulted in at allocation, in one system call, rather than one page fault per 4 KB page as they are first
 * written. With the pages taken at once (MADV_POPULATE_WRITE, Linux 5.14), a 2M-task run takes about 770
 * page faults instead of 67,040 and about 5% less CPU time (README, "Tests, sanitizers, benchmarks"). The
 * function is plain C; the macros use GLib. */
#ifndef SIM_PREFAULT_H
#define SIM_PREFAULT_H

#include <stddef.h>

/* Faults in the whole pages inside [p, p + bytes) for writing, its whole 2 MB parts asked for as huge pages
 * (MADV_HUGEPAGE); below 64 KB, or where the system has no such call, does nothing. Contents are unchanged; failure (no memory now) is left to the first writes,
 * as without it. Returns p. */
void *sim_prefault(void *p, size_t bytes);

/* GLib's g_new and g_new0, prefaulted (n is evaluated twice). Only for arrays written whole:
 * pages never written would count in the resident size. calloc leaves fresh heap memory unwritten, so
 * g_new0's pages are faulted in here, not twice. */
#define SIM_PREFAULT_NEW(T, n) ((T *)sim_prefault(g_new(T, n), sizeof(T) * (size_t)(n)))
#define SIM_PREFAULT_NEW0(T, n) ((T *)sim_prefault(g_new0(T, n), sizeof(T) * (size_t)(n)))

#endif
