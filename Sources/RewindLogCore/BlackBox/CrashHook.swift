internal import CRewindCrash

/// The crash hook: signal handlers that mark each session a process is recording as crashed,
/// with the signal and where it struck, before the process ends.
///
/// A ``Recorder`` installs it when it begins recording (unless
/// ``RecorderConfiguration/crashMarks`` is `false`); an app may install it earlier, at launch,
/// with ``install()``. The handlers are C (the `CRewindCrash` target): inside them no Swift
/// runtime code runs, no memory is allocated and no lock is taken — each writes a fixed-size
/// ``CrashMark`` with one `pwrite` into the session's lock file (opened before the crash), then
/// hands the signal on.
///
/// ## Other crash reporters
/// The signals handled are SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP and SIGFPE — Swift's
/// runtime traps (`fatalError`, a failed `!`, an overflow) among them. A handler installed
/// **before** Rewind's (Sentry, Crashlytics, Swift's own backtracer on Linux) keeps working:
/// Rewind's writes its mark, then calls it as it asked to be called. Without one, the default
/// action ends the process: a fault happens again once the handler returns; a signal that was
/// sent (`abort()`, `raise`, `kill`) is raised again. A reporter installed **after** Rewind
/// must hand signals on for the mark to be written (most do; install Rewind's first with
/// ``install()`` at launch if yours does not). On Apple platforms a reporter that catches Mach
/// exceptions may end the process before any signal handler runs.
///
/// A process marks at most 32 sessions at once (one per live recorder; the 33rd records without
/// a mark and ends `unclean` after a crash). Images loaded after the hook was installed
/// (`dlopen`) are not in its table: an instruction in one has no image or offset.
///
/// A mark also names the last action the store reduced: where it was dispatched from (noted
/// by the dispatch path with each hand-off) and its case, when the recorder's writer thread had
/// named it (``CrashMark/ReducedAction``).
///
/// What a mark says is proven on Linux only. On Apple platforms (64-bit) the image is looked up
/// in dyld's list, its offset counted from its Mach-O header and its LC_UUID taken as the build
/// id; no test runs there, and that code is compiled only by an app's Apple build. On 32-bit
/// watches a mark holds the signal and the faulting address, not the image.
public enum CrashHook {
    /// Installs the handlers, once per process (later calls do nothing).
    ///
    /// - Throws: ``CrashHookError`` with the `errno` of a `sigaction` that failed; then none
    ///   is installed.
    public static func install() throws(CrashHookError) {
        let status = rewind_crash_install()
        guard status == 0 else { throw CrashHookError(errno: status) }
    }

    /// Whether the handlers are installed.
    public static var isInstalled: Bool {
        rewind_crash_is_installed() != 0
    }
}

/// The crash hook could not be installed.
public struct CrashHookError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `errno` of the `sigaction` that failed.
    public var errno: Int32

    public var description: String {
        "the crash hook could not be installed (sigaction failed with errno \(errno))"
    }
}
