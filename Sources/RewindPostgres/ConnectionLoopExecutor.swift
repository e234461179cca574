import NIOCore

/// Runs a task's jobs on a connection's event loop: what a store's copy runs on
/// (``PostgresLog/copy(rows:_:)``).
///
/// postgres-nio traps — a precondition, not an error — when a copy's next write, or the
/// `CopyDone` or `CopyFail` that ends it, reaches a connection that has closed meanwhile: a
/// server restarted in the middle of a push did that, and would have done it to an app recording
/// into the store. On the loop, the copy's code and postgres-nio's next step of it happen in one
/// turn of the loop (postgres-nio calls straight into the connection when it is already on the
/// loop), so seeing the connection still open and taking that step cannot be split by its close.
///
/// (NIO's event loops are not task executors in the NIO this package resolves; this is the few
/// lines that make one.)
final class ConnectionLoopExecutor: TaskExecutor {
    private let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute { job.runSynchronously(on: executor) }
    }
}
