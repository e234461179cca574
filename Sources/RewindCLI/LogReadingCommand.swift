import ArgumentParser

/// A subcommand that reads the log its ``LogOptions`` name. Before it runs, ``RewindTool``
/// calls ``prepareLog()``, which connects to a PostgreSQL store's log (connecting is
/// asynchronous), so that a command's synchronous `run()` (and each of the inspector's calls)
/// opens a store's log as it opens a file, with ``LogOptions/open()``.
protocol LogReadingCommand: ParsableCommand {
    /// The log the command reads, and how to print its answer.
    var options: LogOptions { get }
    /// Whether this run reads the one log its options name; `false` where it asks the store
    /// itself (fleet questions, a store's listing of sessions).
    var readsOneLog: Bool { get }
}

extension LogReadingCommand {
    var readsOneLog: Bool { true }

    /// Connects to the log when it is a store's and the command reads it.
    func prepareLog() async throws {
        if readsOneLog { try await options.prepare() }
    }
}
