#include "CRewindFence.h"

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

static int registered = -1;

int rewind_fence_register(void) {
    int known = __atomic_load_n(&registered, __ATOMIC_ACQUIRE);
    if (known >= 0) return known;
    long commands = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    int works = commands >= 0
        && (commands & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0
        && (commands & MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) != 0
        && syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
    // Two threads racing here both register (harmless) and store the same answer.
    __atomic_store_n(&registered, works, __ATOMIC_RELEASE);
    return works;
}

void rewind_fence_heavy(void) {
    syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
}
#else
int rewind_fence_register(void) { return 0; }
void rewind_fence_heavy(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
#endif
