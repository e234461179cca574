import Foundation
import PostgresNIO
public import RewindLog

extension PostgresLog {
    /// The store's sessions, oldest first, optionally only those recorded by one app, app
    /// version or install.
    ///
    /// - Parameters:
    ///   - app: Only sessions recorded by this app id.
    ///   - appVersion: Only sessions recorded by this app version (the `version` of its
    ///     `AppIdentity`).
    ///   - install: Only sessions of this install or device.
    public func sessions(app: String? = nil, appVersion: String? = nil, install: String? = nil) async throws(EventLogError) -> [StoredSession] {
        do {
            return try await rows("""
                SELECT id, uuid, install_id, origin, coalesce(origin_session, id), app_id, app_version,
                       action_schema_version, state_schema_version, started_at, event_count,
                       -- One probe of the (session_id, seq) key a session.
                       (SELECT time FROM rewind.events e WHERE e.session_id = s.id ORDER BY seq DESC LIMIT 1)
                FROM rewind.sessions s
                WHERE (\(app)::text IS NULL OR app_id = \(app)) AND (\(appVersion)::text IS NULL OR app_version = \(appVersion))
                  AND (\(install)::text IS NULL OR install_id = \(install))
                ORDER BY started_at, id
                """).map { row in
                let columns = row.makeRandomAccess()
                return StoredSession(
                    id: try columns[0].decode(Int64.self), uuid: try columns[1].decode(UUID.self), install: try columns[2].decode(String?.self),
                    log: try columns[3].decode(UUID?.self), numberInLog: try columns[4].decode(Int64.self),
                    app: AppIdentity(
                        id: try columns[5].decode(String.self), version: try columns[6].decode(String.self),
                        actionSchemaVersion: try columns[7].decode(Int.self), stateSchemaVersion: try columns[8].decode(Int.self)
                    ),
                    startedAt: try columns[9].decode(Double.self), eventCount: try columns[10].decode(Int64.self),
                    lastEventAt: try columns[11].decode(Double?.self)
                )
            }
        } catch let error as EventLogError {
            throw error
        } catch {
            throw PostgresFailure.describe(error, at: location, doing: "list sessions")
        }
    }
}
