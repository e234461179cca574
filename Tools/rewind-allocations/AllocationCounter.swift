import MallocInterposerSwift
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Counts the allocations one thread makes while counting is on.
///
/// The interposer's totals sum every thread, and the recorder's writer thread allocates freely
/// while encoding. An allocation hook runs on the allocating thread, so it can keep a tally for
/// the measured thread alone. It must not allocate: it reads the thread id and bumps a counter.
enum AllocationCounter {
    // Written by the hook on the measured thread only, read after counting stops.
    nonisolated(unsafe) private static var measuredThread = pthread_self()
    nonisolated(unsafe) private static var count = 0

    private static let hook: MallocInterposerSwift.AllocationHook = { _ in
        if pthread_equal(pthread_self(), AllocationCounter.measuredThread) != 0 {
            AllocationCounter.count += 1
        }
    }

    /// Allocations on the calling thread while `body` runs.
    static func allocations(_ body: () throws -> Void) rethrows -> Int {
        // Both statics are initialised here, before the hook could be the first to touch them.
        measuredThread = pthread_self()
        count = 0
        MallocInterposerSwift.initialize()
        MallocInterposerSwift.setAllocationHook(hook)
        MallocInterposerSwift.hook()
        try body()
        MallocInterposerSwift.unhook()
        MallocInterposerSwift.setAllocationHook(nil)
        return count
    }
}
