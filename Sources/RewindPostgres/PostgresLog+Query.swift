import Logging
import NIOCore
import PostgresNIO
import RewindLog
import Synchronization

extension PostgresLog {
    /// Runs `query` and returns its rows — or fails as soon as the connection closes.
    ///
    /// A query in flight when the server goes away (restarted, killed, the network cut) can be
    /// left waiting by postgres-nio for an answer that never comes, though the connection is
    /// closed: a push then hung instead of failing. Every statement the store runs goes through
    /// here, racing the query against the connection's close, so such a fault is an error at
    /// once, and running the command again resumes.
    ///
    /// The query runs through postgres-nio's future API, completed on its event loop, not in a
    /// task of its own: an unstructured task would run on Swift's cooperative pool, which a
    /// recorder's synchronous callers may be holding (see ``SynchronousWait``).
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        let connection = connection, logger = Self.logger, location = location
        return try await withCheckedThrowingContinuation { continuation in
            let finished = Mutex(false)
            let finish: @Sendable (Result<[PostgresRow], any Error>) -> Void = { result in
                guard finished.withLock({ done in defer { done = true }; return !done }) else { return }
                continuation.resume(with: result)
            }
            connection.query(query, logger: logger).whenComplete { result in
                finish(result.map(\.rows))
            }
            connection.closeFuture.whenComplete { _ in
                finish(.failure(EventLogError.failed(
                    path: location.description,
                    reason: "the server at \(location.host):\(location.port) closed the connection (restarted, stopped or unreachable); run it again to resume"
                )))
            }
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
