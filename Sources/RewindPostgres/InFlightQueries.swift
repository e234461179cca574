import PostgresNIO
import Synchronization

/// The queries in flight on one connection, each finished exactly once: by its answer, by its
/// deadline, or by the connection closing.
///
/// postgres-nio can leave a query waiting for an answer that never comes though its connection
/// closed (the server restarted, the network cut), so every query must also end when the
/// connection does. A callback on the connection's `closeFuture` per query did that, but such a
/// callback runs only when the connection closes: on a connection that lives for days (a
/// recorder's, `rewind serve`'s) they piled up without bound, one per query. This registry
/// holds one callback for the connection, registered when it opens, and an entry per query only
/// while it runs.
final class InFlightQueries: Sendable {
    typealias Finish = @Sendable (Result<[PostgresRow], any Error>) -> Void

    private struct Entries {
        var next: UInt64 = 0
        var running: [UInt64: Finish] = [:]
        /// Set once the connection closed: what every later query fails with at once.
        var closed: (any Error)?
    }

    private let entries = Mutex(Entries())

    /// How many queries are running (for tests: it must come back to 0).
    var count: Int {
        entries.withLock { $0.running.count }
    }

    /// Adds a query that `finish` ends; `nil` (and `finish` called at once with the error) when
    /// the connection has already closed.
    func add(_ finish: @escaping Finish) -> UInt64? {
        let outcome: Result<UInt64, any Error> = entries.withLock { entries in
            if let closed = entries.closed { return .failure(closed) }
            entries.next += 1
            entries.running[entries.next] = finish
            return .success(entries.next)
        }
        switch outcome {
        case let .success(id):
            return id
        case let .failure(error):
            finish(.failure(error))
            return nil
        }
    }

    /// Ends query `id` with `result`, unless something ended it first.
    func finish(_ id: UInt64, with result: Result<[PostgresRow], any Error>) {
        let finish = entries.withLock { $0.running.removeValue(forKey: id) }
        finish?(result)
    }

    /// Takes query `id` out without ending it, unless something ended it first: its caller ends
    /// it with what the returned closure is given.
    func take(_ id: UInt64) -> Finish? {
        entries.withLock { $0.running.removeValue(forKey: id) }
    }

    /// Ends every running query, and every later one, with `error`: the connection closed.
    func close(with error: any Error) {
        let running = entries.withLock { entries in
            if entries.closed == nil { entries.closed = error }
            defer { entries.running.removeAll() }
            return Array(entries.running.values)
        }
        for finish in running { finish(.failure(error)) }
    }
}
