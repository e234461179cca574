// An asymmetric memory fence, for a pair of threads where one runs all the time (the store's
// dispatch path) and the other seldom (the hang watchdog deciding to sleep, or that an action
// hangs): the hot side orders its store before its load with a compiler barrier alone, and the
// cold side pays for both with membarrier(2), which makes every running thread of the process
// pass a full memory barrier before it returns (Linux's MEMBARRIER_CMD_PRIVATE_EXPEDITED).
//
// Where that call is missing (Apple platforms, old kernels, a sandbox that refuses it),
// `rewind_fence_register` answers 0 and both sides use a full fence instead.
#ifndef REWIND_FENCE_H
#define REWIND_FENCE_H

#ifdef __cplusplus
extern "C" {
#endif

/// Registers the process for expedited membarriers, once; 1 when `rewind_fence_heavy` is the
/// asymmetric fence, 0 when callers must fence both sides.
int rewind_fence_register(void);

/// The cold side's fence: every thread of the process has passed a full barrier when it
/// returns (only after `rewind_fence_register` answered 1).
void rewind_fence_heavy(void);

/// The hot side's fence when `rewind_fence_register` answered 1: the compiler keeps memory
/// accesses on their side of it, the processor is left alone.
static inline void rewind_fence_light(void) {
    __asm__ __volatile__("" ::: "memory");
}

#ifdef __cplusplus
}
#endif

#endif
