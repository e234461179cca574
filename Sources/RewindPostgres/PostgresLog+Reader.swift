public import Foundation
import PostgresNIO
public import RewindCodingCore
public import RewindLog

extension PostgresLog {
    /// One log of the store, read in place (``PostgresLogReader``): `Replayer`, every `rewind`
    /// command and the inspector read it as they read the device's own file, with the same
    /// session numbers, seqs and answers.
    ///
    /// ```swift
    /// let store = try await PostgresLog.open(location, mode: .readOnly)
    /// let log = try await store.reader()
    /// let state = try Replayer(log: log, reducer: Shop.reducer).state(at: 1234)
    /// ```
    ///
    /// The reader uses this store's connection: keep the store open while reading.
    ///
    /// - Parameters:
    ///   - id: The log's identity (the UUID `rewind push` reports); `nil` takes the location's
    ///     `log=`, else the sessions its `install=` names, else the store's only log.
    ///   - codecs: The codecs to decode payloads with (the reader makes its own instances).
    ///   - keys: Keys for encrypted sessions, as for a file.
    /// - Throws: `EventLogError.failed` when the store has no sessions from that log or
    ///   install, sessions of several logs under one install, or more than one log and none
    ///   named.
    public func reader(_ id: UUID? = nil, codecs: PayloadCodecs = .standard, keys: LogKeys = LogKeys()) async throws(EventLogError) -> PostgresLogReader {
        if id == nil, location.log == nil, let install = location.install {
            return try await reader(origin: try await installedLog(install), install: install, codecs: codecs, keys: keys)
        }
        return try await reader(origin: try await namedLog(id ?? location.log), install: nil, codecs: codecs, keys: keys)
    }

    /// The reader of the sessions pushed from log `origin`, or, without one, of those recorded
    /// into the store under `install` (which may be `nil`: recorded without an install).
    package func reader(origin: UUID?, install: String?, codecs: PayloadCodecs = .standard, keys: LogKeys) async throws(EventLogError) -> PostgresLogReader {
        var name = location
        (name.log, name.install) = (origin, origin == nil ? install : nil)
        let space: Int64?
        do {
            space = try await rows("SELECT id FROM rewind.symbol_spaces WHERE origin = \(origin)").first?.decode(Int64.self)
        } catch {
            throw PostgresFailure.describe(error, at: name, doing: "find the log's symbols")
        }
        return PostgresLogReader(
            store: self, owned: false, origin: origin, install: origin == nil ? install : nil, symbolSpace: space, location: name, codecs: codecs, keys: keys
        )
    }

    /// The log whose sessions `install` names: `nil` for sessions recorded into the store, or
    /// the one log they were pushed from (a push's `--install`).
    private func installedLog(_ install: String) async throws(EventLogError) -> UUID? {
        let origins: [UUID?]
        do {
            origins = try await rows("SELECT DISTINCT origin FROM rewind.sessions WHERE install_id = \(install) LIMIT 3").map { row in try row.decode(UUID?.self) }
        } catch {
            throw PostgresFailure.describe(error, at: location, doing: "find the install's sessions")
        }
        guard origins.count == 1, let only = origins.first else {
            throw .failed(path: location.description, reason: origins.isEmpty
                ? "the store holds no sessions of install \(install)"
                : "install \(install)'s sessions come from several logs, each numbered on its own: name one with log=ID (`rewind sessions` lists them with their log)")
        }
        return only
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
