import Foundation
#if PostgreSQL
import RewindPostgres
#endif

/// `rewind sessions postgres://…`: a store's sessions, with what fleet questions and pulls
/// choose them by.
struct StoreSessions: CommandReport {
    /// One session in the store.
    struct Session: Encodable {
        /// Its number in the store (`pull --session`).
        var id: Int64
        var uuid: String
        var install: String?
        /// The identity of the log it was pushed from, and its number there.
        var log: String?
        var numberInLog: Int64
        var app: String
        var appVersion: String
        var actionSchemaVersion: Int
        var stateSchemaVersion: Int
        /// ISO-8601, UTC.
        var startedAt: String
        /// ISO-8601, UTC; absent when the session has no events.
        var lastEventAt: String?
        var events: Int64
    }

    var sessions: [Session]

    func encode(to encoder: any Encoder) throws {
        try sessions.encode(to: encoder)
    }

    var text: String {
        guard !sessions.isEmpty else { return "no sessions" }
        let header = ["session", "uuid", "install", "app", "version", "started", "events", "pushed from (log, session)"]
        return Rendering.table([header] + sessions.map { session in
            [
                "\(session.id)", session.uuid, session.install ?? "—", session.app, session.appVersion, session.startedAt, "\(session.events)",
                session.log.map { "\($0), \(session.numberInLog)" } ?? "recorded into the store",
            ]
        })
    }

    /// The sessions of the store at `url`, optionally of one app version or install, or recording
    /// during a time window.
    static func report(url: String, appVersion: String?, install: String?, window: TimeWindow) async throws -> StoreSessions {
        #if PostgreSQL
        let location = try StoreURL.parse(url)
        let store = try await PostgresLog.open(location, mode: .readOnly)
        let stored: [StoredSession]
        do {
            stored = try await store.sessions(appVersion: appVersion, install: install)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
        return StoreSessions(sessions: try window.choose(stored, start: \.startedAt, lastEvent: \.lastEventAt).map { session in
            Session(
                id: session.id, uuid: session.uuid.uuidString.lowercased(), install: session.install, log: session.log?.uuidString.lowercased(),
                numberInLog: session.numberInLog, app: session.app.id, appVersion: session.app.version,
                actionSchemaVersion: session.app.actionSchemaVersion, stateSchemaVersion: session.app.stateSchemaVersion,
                startedAt: Rendering.timestamp(session.startedAt), lastEventAt: session.lastEventAt.map(Rendering.timestamp),
                events: session.eventCount
            )
        })
        #else
        throw InputError("\(LogLocation.redacted(url)): this rewind was built without PostgreSQL (the PostgreSQL trait)")
        #endif
    }
}
