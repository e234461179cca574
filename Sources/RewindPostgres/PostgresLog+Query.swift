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
        let connection = connection, logger = Self.logger, location = location, inFlight = inFlight, timeout = timeout ?? queryTimeout
        return try await withCheckedThrowingContinuation { continuation in
            guard let id = inFlight.add({ continuation.resume(with: $0) }) else { return }
            // A second's grace past the server's own timeout, so that a server that still
            // answers says which statement ran out (and keeps its connection).
            let deadline = connection.eventLoop.scheduleTask(in: .init(timeout + .seconds(1))) {
                inFlight.finish(id, with: .failure(EventLogError.failed(
                    path: location.description,
                    reason: "the server at \(location.host):\(location.port) did not answer within \(timeout) (the store's query timeout), so the connection was closed; run it again to resume"
                )))
                connection.close().whenComplete { _ in }
            }
            connection.query(query, logger: logger).whenComplete { result in
                deadline.cancel()
                inFlight.finish(id, with: result.map(\.rows))
            }
        }
    }

    /// How many rows of `columns` parameters one statement may insert: PostgreSQL takes at
    /// most 65,535 parameters per statement.
    static func eventsPerStatement(columns: Int) -> Int {
        Int(UInt16.max) / columns
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
