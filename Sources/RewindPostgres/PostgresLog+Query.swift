import Logging
import NIOCore
import PostgresNIO
import RewindLog

extension PostgresLog {
    /// Runs `query` and returns its rows — or fails when the connection closes, or when the
    /// server has not answered within the store's `queryTimeout`.
    ///
    /// Every statement the store runs goes through here.
    /// - A connection that closes under a query (server restarted, killed, the network cut)
    ///   fails it at once (``InFlightQueries``), so running the command again resumes.
    /// - A server that stops answering without closing (a stopped backend, a silent network
    ///   cut, a lock held elsewhere) meets the deadline: the query fails and the connection is
    ///   closed, since its answer might still come and would be taken for the next query's. The
    ///   server's own `statement_timeout` and `lock_timeout`, set to the same limit when the
    ///   connection opens, end the work there too; they never fire on a backend that is stopped,
    ///   which is why the deadline is the client's.
    ///
    /// The query runs through postgres-nio's future API, completed on its event loop, not in a
    /// task of its own: an unstructured task would run on Swift's cooperative pool, which a
    /// recorder's synchronous callers may be holding (see ``SynchronousWait``).
    ///
    /// - Parameter timeout: The statement's own limit, in place of the store's (a migration's);
    ///   the server must have been told it too (`SET LOCAL statement_timeout`).
    func rows(_ query: PostgresQuery, timeout: Duration? = nil) async throws -> [PostgresRow] {
        let connection = connection, logger = Self.logger
        return try await bounded(timeout: timeout ?? queryTimeout, doing: "answer") { finish in
            connection.query(query, logger: logger).whenComplete { finish($0.map(\.rows)) }
        }
    }

    /// What `start` begins on the connection, ended by whichever comes first: `start`'s call
    /// of its `finish`, the connection closing (``InFlightQueries``), or `timeout` and a
    /// second's grace — the grace so that a server that still answers says which statement
    /// ran out (and keeps its connection) — at which the connection is closed.
    private func bounded(
        timeout: Duration, doing what: String,
        _ start: (_ finish: @escaping @Sendable (Result<[PostgresRow], any Error>) -> Void) -> Void
    ) async throws -> [PostgresRow] {
        let connection = connection, location = location, inFlight = inFlight
        return try await withCheckedThrowingContinuation { continuation in
            guard let id = inFlight.add({ continuation.resume(with: $0) }) else { return }
            let deadline = connection.eventLoop.scheduleTask(in: .init(timeout + .seconds(1))) {
                // Taken out first, so that the close does not end it with its own error; ended
                // once the close has begun (on this loop, the channel is then inactive), so that
                // the caller finds the connection closed, as the error says.
                let finish = inFlight.take(id)
                connection.close().whenComplete { _ in }
                finish?(.failure(EventLogError.failed(
                    path: location.description,
                    reason: "the server at \(location.host):\(location.port) did not \(what) within \(timeout) (the store's query timeout), so the connection was closed; run it again to resume"
                )))
            }
            start { result in
                deadline.cancel()
                inFlight.finish(id, with: result)
            }
        }
    }

    /// Copies rows into `rewind.events` (`COPY … FROM STDIN`), inside the caller's
    /// transaction — or fails when the connection closes, or when the server has not taken
    /// them within the store's `queryTimeout`, as ``rows(_:timeout:)`` does.
    ///
    /// postgres-nio's `copyFrom` is async only, and would wait forever for a connection that
    /// closed before the copy reached it; so the copy runs in a task of its own, on the
    /// connection's event loop (not the cooperative pool, for the reason ``rows(_:timeout:)``
    /// gives; and see `copy(writing:letGo:)`), and the caller waits for whichever comes first:
    /// the copy's end, the connection's, or the deadline. A copy cut off that way fails its
    /// transaction.
    ///
    /// The rows are `count`, the row at each index appended by `row`: formatted
    /// ``copyChunk`` at a time while the server takes the chunk before, as a single `COPY`
    /// stream's two sides overlap (formatting a push's batch whole before sending it left the
    /// server idle meanwhile).
    func copy(rows count: Int, _ row: @escaping @Sendable (_ index: Int, _ into: inout EventCopy) -> Void) async throws {
        guard count > 0 else { return }
        let chunkRows = Self.copyChunk, rows = CopyRows(row)
        try await copy { write in
            for start in stride(from: 0, to: count, by: chunkRows) {
                guard let row = rows.row else { throw CancellationError() }
                var chunk = EventCopy(reservingBytes: 128 * chunkRows)
                for index in start..<min(start + chunkRows, count) { row(index, &chunk) }
                try await write(chunk.buffer)
            }
        } letGo: {
            rows.release()
        }
    }

    /// Rows per chunk of a copy. A recorder's batch of a few hundred rows was one chunk at
    /// 1,000, formatted whole before the server saw any of it; at 250 the recorder into a
    /// store went from 0.54–0.55× to 0.57–0.58× of a file (three alternated sittings), and a
    /// push's 10,000-event batches did not move.
    static let copyChunk = 250

    /// Runs `produce` inside postgres-nio's `copyFrom`, on the connection's event loop
    /// (``ConnectionLoopExecutor``), and never lets the copy take a step on a closed connection:
    /// before each write and before `produce`'s end (which `copyFrom` answers with `CopyDone` or
    /// `CopyFail`) the connection is looked at, in the same turn of the loop. Found closed, the
    /// copy's task calls `letGo` (to free what it holds) and stays suspended for good: the caller
    /// has its answer already, the connection's close (``bounded(timeout:doing:_:)``), and
    /// postgres-nio has no way out of a copy that does not trap on a closed connection. What is
    /// left is the suspended task, one per connection lost in the middle of a copy.
    func copy(
        writing produce: @escaping @Sendable (_ write: (ByteBuffer) async throws -> Void) async throws -> Void,
        letGo: @escaping @Sendable () -> Void
    ) async throws {
        // The table by its name alone: the connection's search path begins with the store's
        // schema (see `connect`).
        let connection = connection, logger = Self.logger
        _ = try await bounded(timeout: queryTimeout, doing: "take a copy") { finish in
            Task(executorPreference: ConnectionLoopExecutor(connection.eventLoop)) {
                do {
                    try await connection.copyFrom(table: "events", columns: EventCopy.columns, logger: logger) { writer in
                        let outcome: Result<Void, any Error>
                        do {
                            try await produce { buffer in
                                // Closed: stop here; the copy is let go of below.
                                guard !connection.isClosed else { throw CancellationError() }
                                try await writer.write(buffer)
                            }
                            outcome = .success(())
                        } catch {
                            outcome = .failure(error)
                        }
                        if connection.isClosed {
                            letGo()
                            await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
                        }
                        try outcome.get()
                    }
                    finish(.success([]))
                } catch {
                    finish(.failure(error))
                }
            }
        }
    }

    /// Runs each statement of `script` in turn, each within `timeout` (the store's by default).
    func run(_ script: String, timeout: Duration? = nil) async throws {
        for statement in SQLScript.statements(script) {
            _ = try await rows(PostgresQuery(unsafeSQL: statement), timeout: timeout)
        }
    }

    /// The first row of `query` decoded as `T`; an error when there is none.
    func single<T: PostgresDecodable & Sendable>(_ type: T.Type, _ query: PostgresQuery) async throws -> T {
        guard let row = try await rows(query).first else {
            throw EventLogError.failed(path: location.description, reason: "a query that returns one row returned none")
        }
        return try row.decode(T.self)
    }
}
