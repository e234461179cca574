#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// CPU time consumed so far, in seconds: by the whole process, or by the calling thread alone.
/// The record workload charges the writer thread the difference (the process's CPU time over a
/// run, less the dispatching thread's), which is the battery a recording costs beyond the app.
enum CPUTime {
    static var process: Double { seconds(CLOCK_PROCESS_CPUTIME_ID) }
    static var thread: Double { seconds(CLOCK_THREAD_CPUTIME_ID) }

    private static func seconds(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
