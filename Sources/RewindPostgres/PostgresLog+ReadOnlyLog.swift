public import Foundation
import PostgresNIO
public import RewindCoding
public import RewindLog

extension PostgresLog {
    /// One log of the store, read as its file is read: an `EventLog` opened read-only that
    /// `Replayer`, every `rewind` command and the inspector use as they use the device's own
    /// file, with the same session numbers, seqs and answers.
    ///
    /// ```swift
    /// let store = try await PostgresLog.open(location, mode: .readOnly)
    /// let log = try await store.readOnlyLog(logID)
    /// let state = try Replayer(log: log, reducer: Shop.reducer).state(at: 1234)
    /// ```
    ///
    /// The log's sessions are brought, as they are when it is called, into a temporary file that
    /// only its owner can read, deleted when the returned log is; errors and `EventLog.path`
    /// name the store and the log (`postgres://…?log=…`, without the password) instead. Sessions
    /// pushed later are not seen: call it again. Reading in place, without the copy, is the
    /// next step of the store (see the RewindPostgres article).
    ///
    /// - Parameters:
    ///   - id: The log's identity (the UUID `rewind push` reports); `nil` takes the location's
    ///     `log=`, else the sessions its `install=` recorded into the store, else the store's
    ///     only log.
    ///   - codecs: The codecs to decode payloads with.
    ///   - keys: Keys for encrypted sessions, as for a file.
    ///   - progress: Called after each page of events copied.
    /// - Throws: `EventLogError.failed` when the store has no sessions from that log, or more
    ///   than one log and none named; what a pull throws.
    public func readOnlyLog(
        _ id: UUID? = nil, codecs: PayloadCodecs = .standard, keys: LogKeys = LogKeys(),
        progress: (@Sendable (PullProgress) -> Void)? = nil
    ) async throws(EventLogError) -> EventLog {
        var name = location
        let selection: PullSelection
        if id == nil, location.log == nil, let install = location.install {
            // A service's own sessions: the store's numbers (pull refuses a mix with pushed ones).
            selection = .install(install)
        } else {
            let logID = try await namedLog(id ?? location.log)
            (name.log, name.install) = (logID, nil)
            selection = .log(logID)
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("rewind-store-\(UUID().uuidString).rewind").path
        _ = try await pull(selection, to: file, progress: progress)
        return try EventLog(readingCopy: file, named: name.description, codecs: codecs, keys: keys)
    }

    /// `id` when the store has sessions pushed from that log; without one, the store's only log.
    private func namedLog(_ id: UUID?) async throws(EventLogError) -> UUID {
        let logs: [UUID]
        do {
            logs = try await rows("""
                SELECT DISTINCT origin FROM rewind.sessions
                WHERE origin IS NOT NULL AND (\(id)::uuid IS NULL OR origin = \(id)) LIMIT 3
                """).map { row in try row.decode(UUID.self) }
        } catch {
            throw PostgresFailure.describe(error, at: location, doing: "find the log to read")
        }
        if let id {
            guard logs == [id] else {
                throw .failed(path: location.description, reason: "no sessions were pushed from log \(id.uuidString.lowercased()) (`rewind sessions` lists the store's)")
            }
            return id
        }
        guard logs.count == 1, let only = logs.first else {
            throw .failed(path: location.description, reason: logs.isEmpty
                ? "the store holds no sessions pushed from a log yet"
                : "the store holds sessions of several logs: name one with log=ID in the URL (`rewind sessions` lists them with their log)")
        }
        return only
    }
}
