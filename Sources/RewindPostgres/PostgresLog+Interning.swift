import Foundation
import PostgresNIO
import RewindLog
import Synchronization

/// The store's shared rows — call sites, case paths, type shapes — found or added by every
/// writer (a push, a recorder), and the transactions writers run in.
extension PostgresLog {
    /// The id of a call site's row, added when the store does not have it.
    func sourceID(file: String, function: String, line: Int64, column: Int64, origin: String) async throws -> Int64 {
        _ = try await rows("""
            INSERT INTO rewind.sources (file, function, line, "column", origin)
            VALUES (\(file), \(function), \(line), \(column), \(origin))
            ON CONFLICT DO NOTHING
            """)
        return try await single(Int64.self, """
            SELECT id FROM rewind.sources
            WHERE file = \(file) AND function = \(function) AND line = \(line) AND "column" = \(column) AND origin = \(origin)
            """)
    }

    /// The id of a case path's row, added when the store does not have it.
    func actionID(_ name: String) async throws -> Int64 {
        _ = try await rows("INSERT INTO rewind.actions (name) VALUES (\(name)) ON CONFLICT DO NOTHING")
        return try await single(Int64.self, "SELECT id FROM rewind.actions WHERE name = \(name)")
    }

    /// The id of `shape`'s row, added when the store does not have it; each shape is stored once.
    func shapeID(_ shape: TypeShape?) async throws -> Int64? {
        guard let shape else { return nil }
        let text = try shape.storedJSON()
        _ = try await rows("""
            INSERT INTO rewind.type_shapes (fingerprint, digest, shape) VALUES (\(shape.fingerprint), sha256(convert_to(\(text), 'UTF8')), \(text))
            ON CONFLICT (digest) DO NOTHING
            """)
        return try await single(Int64.self, "SELECT id FROM rewind.type_shapes WHERE digest = sha256(convert_to(\(text), 'UTF8'))")
    }

    /// `gap.cases` as the `gaps.cases` column stores it.
    static func casesJSON(_ gap: LogGap) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: gap.cases, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// - Throws: `body`'s error (nothing was committed); or ``AmbiguousCommit`` when the answer
    ///   to `COMMIT` was anything but the server's refusal: the server may have committed.
    func transaction<T>(_ body: () async throws -> T) async throws -> T {
        _ = try await rows("BEGIN")
        let result: T
        do {
            result = try await body()
        } catch {
            _ = try? await rows("ROLLBACK")
            throw error
        }
        if let fault = losesCommit.withLock({ fault in defer { fault = nil }; return fault }) {
            // The fault a test asks for: the connection lost once COMMIT is on its way, its
            // answer never read. (Both go through the connection's event loop, in this order.)
            _ = try? await commitThenClose().get()
            await fault()
            throw AmbiguousCommit(underlying: EventLogError.failed(path: location.description, reason: "the connection was lost after COMMIT was sent"))
        }
        do {
            _ = try await rows("COMMIT")
        } catch {
            guard connection.isClosed || !Self.refusedCommit(error) else { throw error }
            throw AmbiguousCommit(underlying: error)
        }
        return result
    }

    /// Whether `error`, the answer to a `COMMIT`, says the transaction was not committed: the
    /// server's `ERROR` (a deferred constraint, a serialization failure). Anything else — the
    /// connection lost, or a `FATAL` from a server shutting down, which can end a backend
    /// after its commit is durable and before it answers, and may come before the connection
    /// is seen closed — leaves it unknown.
    static func refusedCommit(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.severity] == "ERROR"
    }

    /// Sends `COMMIT`, then closes the connection (the fault ``losesCommit`` asks
    /// for). Synchronous, so that it calls postgres-nio's future API.
    private func commitThenClose() -> EventLoopFuture<PostgresQueryResult> {
        let sent = connection.query("COMMIT", logger: Self.logger)
        connection.close().whenComplete { _ in }
        return sent
    }
}

/// The connection was lost after `COMMIT` was sent and before its answer came: the transaction
/// may or may not be in the store. A writer whose transaction is idempotent looks, then decides
/// (`PostgresRecordingLog.write(session:_:)`).
struct AmbiguousCommit: Error {
    var underlying: any Error
}
