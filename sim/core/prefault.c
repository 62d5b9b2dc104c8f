/* Prefaulting arrays written whole (see prefault.h). */
#include "prefault.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

void *sim_prefault(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE); /* glibc: from the auxiliary vector, no call */
    if (p && bytes >= 64 * 1024) {
        uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1), hi = ((uintptr_t)p + bytes) & ~(page - 1);
        if (hi > lo)
            (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
    }
#endif
    return p;
}
