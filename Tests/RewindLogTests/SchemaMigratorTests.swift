import Foundation
import GRDB
import Rewind
import RewindExamples
@testable import RewindLogCore
@testable import RewindSQLite
import RewindTestSupport
import Testing

/// Migrations after the embedded ones, run on a recorded log: what the migrator checks before
/// a migration commits.
@Suite("Schema migrator")
struct SchemaMigratorTests {
    /// A log at the newest schema holding one recorded todo session.
    private func recordedLog(in folder: TemporaryDirectory) throws -> String {
        let path = folder.file("log.rewind")
        let log = try EventLog(path: path)
        let recorder = Recorder<TodoState, TodoAction>(log: log, app: AppIdentity(id: "com.example.todo"))
        let store = Store(initialState: TodoState(), reducer: Todo.reducer, middleware: recorder.middleware)
        store.dispatch(.filter(.active))
        store.dispatch(.filter(.all))
        try recorder.close()
        try log.close()
        return path
    }

    private func migration(_ step: Int, _ sql: String) -> SchemaMigration {
        SchemaMigration(version: SchemaMigrator.latestVersion + step, name: "test_\(step)", sql: sql)
    }

    private func version(_ db: Database) throws -> Int { try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 }

    @Test("a migration that leaves an event naming a missing session rolls back, and says which table")
    func brokenReferenceRollsBack() throws {
        let folder = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: try recordedLog(in: folder))
        try queue.writeWithoutTransaction { db in
            let latest = try version(db)
            do {
                try SchemaMigrator.migrate(db, path: "log", migrations: SchemaMigrator.embedded + [migration(1, "DELETE FROM sessions")])
                Issue.record("the migration committed")
            } catch let EventLogError.corrupt(_, detail) {
                #expect(detail.contains("test_1") && detail.contains("events"), "\(detail)")
            }
            #expect(try version(db) == latest)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM sessions") == 1)
        }
    }

    @Test("a migration that changes no row and no table commits without reading every row; one that changes a row is checked")
    func unchangedSkipsTheCheck() throws {
        let folder = try TemporaryDirectory()
        let queue = try DatabaseQueue(path: try recordedLog(in: folder))
        try queue.writeWithoutTransaction { db in
            // A reference already broken before the migrations: only the full check sees it.
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            try db.execute(sql: "UPDATE events SET session_id = 999 WHERE seq = 1")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
            let latest = try version(db)
            try SchemaMigrator.migrate(db, path: "log", migrations: SchemaMigrator.embedded + [migration(1, "SELECT 1")])
            #expect(try version(db) == latest + 1)
            for sql in ["UPDATE sessions SET info = 'changed'", "CREATE TABLE extra (id INTEGER PRIMARY KEY)"] {
                #expect(throws: EventLogError.self, "\(sql)") {
                    try SchemaMigrator.migrate(db, path: "log", migrations: SchemaMigrator.embedded + [migration(1, "SELECT 1"), migration(2, sql)])
                }
                #expect(try version(db) == latest + 1)
            }
        }
    }
}
