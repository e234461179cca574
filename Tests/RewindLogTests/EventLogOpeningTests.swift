import Foundation
import GRDB
import Rewind
import RewindLog
import RewindTestSupport
@testable import RewindSQLite
import Synchronization
import Testing

@Suite("EventLog opening")
struct EventLogOpeningTests {
    @Test("the log's -wal and -shm files are owner-only too, whatever the umask")
    func walAndShmAreOwnerOnly() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("app.rewind")
        let previous = umask(0)
        defer { umask(previous) }
        let log = try EventLog(path: path)
        let session = try log.beginSession(app: AppIdentity(id: "app"), initialState: 0)
        try log.append([EventRecord(1, source: ActionSource())], to: session)
        for suffix in ["", "-wal", "-shm"] {
            let permissions = try FileManager.default.attributesOfItem(atPath: path + suffix)[.posixPermissions] as? Int
            #expect(permissions == 0o600, "\(suffix.isEmpty ? "the log" : suffix)")
        }
        try log.close()
    }

    @Test("processes creating one new log at once share it: none replaces the file another already uses")
    func concurrentCreation() throws {
        let folder = try TemporaryDirectory()
        for round in 0..<20 {
            let path = folder.file("race-\(round).rewind")
            let writers = 6
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: writers) { index in
                do {
                    let log = try EventLog(path: path)
                    let session = try log.beginSession(app: AppIdentity(id: "writer-\(index)"), initialState: index)
                    try log.append([EventRecord(index, source: ActionSource())], to: session)
                    try log.close()
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let log = try EventLog(path: path, mode: .readOnly)
            #expect(try log.sessions().count == writers, "round \(round): every writer's session is in the one file")
            #expect(try log.checkIntegrity().isSound)
        }
    }

    @Test("a new log is created owner-only, in WAL mode, stamped and migrated")
    func createsNewLog() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("app.rewind")
        let log = try EventLog(path: path)
        #expect(try log.schemaVersion() == EventLog.latestSchemaVersion)
        try log.close()

        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        let database = try DatabaseQueue(path: path)
        let (journalMode, applicationID, migrations) = try database.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try Int32.fetchOne(db, sql: "PRAGMA application_id"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM schema_migrations")
            )
        }
        #expect(journalMode == "wal")
        #expect(applicationID == 0x5257_4E44)
        #expect(migrations == EventLog.latestSchemaVersion)
    }

    @Test("a log opened for writing keeps a page cache of 512 KiB, a phone's budget; one opened to read keeps SQLite's 2 MB")
    func writerPageCache() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("app.rewind")
        let writer = try EventLog(path: path)
        // Negative: KiB, not pages.
        #expect(try writer.database.read { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") } == -512)
        let reader = try EventLog(path: path, mode: .readOnly)
        #expect(try reader.database.read { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") } == -2_000)
    }

    @Test("reopening an existing log keeps it as it was")
    func reopens() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("app.rewind")
        let session = try EventLog(path: path).beginSession(app: AppIdentity(id: "test"), initialState: [1, 2, 3])
        let reopened = try EventLog(path: path, mode: .readOnly)
        #expect(try reopened.sessions().map(\.id) == [session.id])
    }

    @Test("the embedded schema is exactly Migrations/*.sql")
    func embeddedMigrationsMatchFiles() throws {
        #expect(try embeddedMigrationDifferences(folder: "Migrations", generated: "Sources/RewindSQLite/Schema/EmbeddedMigrations.swift") == [])
    }

    @Test("a log's identity: made once, kept by reopening, by a copy of the file and by export and import; another log has another")
    func identity() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("app.rewind")
        let log = try EventLog(path: path)
        _ = try log.beginSession(app: AppIdentity(id: "app"), initialState: 0)
        let identity = try #require(try log.identity())
        try log.close()
        #expect(try EventLog(path: path, mode: .readOnly).identity() == identity)
        try FileManager.default.copyItem(atPath: path, toPath: folder.file("copy.rewind"))
        #expect(try EventLog(path: folder.file("copy.rewind")).identity() == identity)
        let export = URL(fileURLWithPath: folder.file("app.jsonl"))
        _ = try EventLog(path: path, mode: .readOnly).export(to: export)
        #expect(try EventLog.importLog(from: export, to: folder.file("imported.rewind")).identity() == identity)
        let other = try #require(try EventLog(path: folder.file("other.rewind")).identity())
        #expect(other != identity)
    }

    @Test("a missing file opened read-only is reported as missing")
    func missingFile() throws {
        let folder = try TemporaryDirectory()
        #expect(throws: EventLogError.fileNotFound(path: folder.file("nope.rewind"))) {
            try EventLog(path: folder.file("nope.rewind"), mode: .readOnly)
        }
    }

    @Test("a log cannot be created in a folder that does not exist")
    func missingFolder() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("no/such/folder/app.rewind")
        let error = #expect(throws: EventLogError.self) { try EventLog(path: path) }
        guard case .readOnly? = error else { Issue.record("unexpected \(String(describing: error))"); return }
        #expect(error?.description.contains("cannot create the file") == true)
    }

    @Test("a file that is not SQLite is refused and left unchanged")
    func notSQLite() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("notes.rewind")
        try Data("Dear diary, today I recorded nothing.".utf8).write(to: URL(fileURLWithPath: path))
        let before = fileBytes(path)
        let error = #expect(throws: EventLogError.self) { try EventLog(path: path) }
        guard case .notSQLite? = error else { Issue.record("unexpected \(String(describing: error))"); return }
        #expect(error?.description == "\(path): not a Rewind log (not a SQLite database: it starts with \"Dear diary. toda\")")
        #expect(fileBytes(path) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test("a folder is refused")
    func folderIsRefused() throws {
        let folder = try TemporaryDirectory()
        let error = #expect(throws: EventLogError.self) { try EventLog(path: folder.path) }
        #expect(error?.description.contains("it is a folder") == true)
    }

    @Test("a SQLite database that is not a Rewind log is refused and left unchanged")
    func foreignDatabase() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("other.sqlite")
        let other = try DatabaseQueue(path: path)
        try other.write { db in
            try db.execute(sql: "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada')")
        }
        try other.close()
        let before = fileBytes(path)
        #expect(throws: EventLogError.notARewindLog(path: path, applicationID: 0)) { try EventLog(path: path) }
        #expect(fileBytes(path) == before)
    }

    @Test("a log from a newer schema is refused and left unchanged")
    func newerSchema() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("future.rewind")
        try EventLog(path: path).close()
        try markAsNewerSchema(path, version: 42)
        let before = fileBytes(path)
        let error = #expect(throws: EventLogError.newerSchema(path: path, found: 42, supported: EventLog.latestSchemaVersion)) { try EventLog(path: path) }
        #expect(error?.description.contains("the file was not changed") == true)
        #expect(fileBytes(path) == before)
    }

    @Test("a truncated log is reported as damaged and left unchanged")
    func truncated() throws {
        let folder = try TemporaryDirectory()
        let original = folder.file("full.rewind")
        let log = try EventLog(path: original)
        _ = try log.beginSession(app: AppIdentity(id: "test"), initialState: Array(repeating: "state", count: 2_000))
        try log.close()
        let bytes = try #require(fileBytes(original))
        let path = folder.file("truncated.rewind")
        try bytes.prefix(bytes.count / 2 + 100).write(to: URL(fileURLWithPath: path))
        let before = fileBytes(path)
        let error = #expect(throws: EventLogError.self) { try EventLog(path: path) }
        guard case .corrupt? = error else { Issue.record("unexpected \(String(describing: error))"); return }
        #expect(fileBytes(path) == before)
    }

    @Test("a log opened read-only refuses writes and stays unchanged")
    func readOnlyMode() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("app.rewind")
        try EventLog(path: path).close()
        let before = fileBytes(path)
        let log = try EventLog(path: path, mode: .readOnly)
        let error = #expect(throws: EventLogError.self) {
            try log.beginSession(app: AppIdentity(id: "test"), initialState: 0)
        }
        guard case .readOnly? = error else { Issue.record("unexpected \(String(describing: error))"); return }
        #expect(fileBytes(path) == before)
    }

    // Root may write to any file, so file permissions can only be tested as another user.
    @Test("a read-only file is refused for writing but opens for reading", .enabled(if: getuid() != 0))
    func readOnlyFile() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("app.rewind")
        try EventLog(path: path).close()
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: path)
        let error = #expect(throws: EventLogError.self) { try EventLog(path: path) }
        guard case .readOnly? = error else { Issue.record("unexpected \(String(describing: error))"); return }
        #expect(try EventLog(path: path, mode: .readOnly).schemaVersion() == EventLog.latestSchemaVersion)
    }

    @Test("an empty file becomes a log when opened for writing, and is refused for reading")
    func emptyFile() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("empty.rewind")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(throws: EventLogError.notSQLite(path: path, reason: "the file is empty")) {
            try EventLog(path: path, mode: .readOnly)
        }
        #expect(try EventLog(path: path).schemaVersion() == EventLog.latestSchemaVersion)
    }

    enum Step: Codable, Equatable { case first(Int), second(Int), more }

    @Test("a log of an older schema is read as it is, and migrated forward when opened for writing, keeping its events")
    func migratesOlderLog() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("old.rewind")
        let log = try EventLog(path: path)
        let first = try log.beginSession(app: AppIdentity(id: "first"), initialState: 0)
        let second = try log.beginSession(app: AppIdentity(id: "second"), initialState: 0)
        // Interleaved, as two processes recording into one file would leave them.
        for round in 0..<3 {
            try log.append([EventRecord(Step.first(round), source: ActionSource())], to: first)
            try log.append([EventRecord(Step.second(round), source: ActionSource()), EventRecord(Step.more, source: ActionSource())], to: second)
        }
        let expected = try log.sessions().map { [$0.id, Int64($0.eventCount), $0.seqRange?.lowerBound, $0.seqRange?.upperBound] }
        #expect(expected == [[1, 3, 1, 7], [2, 6, 2, 9]])
        try log.close()
        try downgradeToSchemaOne(path)
        /// What every reading path sees of the recorded events, whichever schema the file has.
        func expectReadsAsRecorded(_ log: EventLog) throws {
            #expect(try log.sessions().map { [$0.id, Int64($0.eventCount), $0.seqRange?.lowerBound, $0.seqRange?.upperBound] } == expected)
            #expect(try log.event(at: 1).decodeAction(as: Step.self, codec: JSONPayloadCodec(), path: path) == .first(0))
            let secondCases = ["second", "more", "second", "more", "second", "more"]
            var cursor = log.events(EventFilter(actionCase: "*o*"))
            #expect(try cursor.collect().map(\.actionCase) == secondCases)
            #expect(try log.statistics().actionCases.map(\.name) == ["first", "more", "second"])
            var replayed: [Step] = []
            try SessionReader(log: log, session: log.session(2)).forEachAction(Step.self, from: 1, through: 9) { _, step in
                replayed.append(step)
                return .continue
            }
            #expect(replayed == [.second(0), .more, .second(1), .more, .second(2), .more])
            #expect(try log.decodeAction(of: log.event(at: 9), as: Step.self) == .more)
        }
        let before = fileBytes(path)
        // This log's own copy, by the path it was made at: other tests running at the same time
        // make and delete copies of their own in the same folder.
        var copy = ""
        do {
            // Read through a migrated copy: the file itself is never changed.
            let old = try EventLog(path: path, mode: .readOnly)
            copy = old.database.path
            #expect(copy.contains("/rewind-upgraded-") && copy != path)
            #expect(try old.schemaVersion() == 1)
            #expect(try old.identity() == nil, "a read-only file older than identities has none")
            try expectReadsAsRecorded(old)
            // Unlinked once migrated: read on through its open descriptor, nothing in the folder.
            withExtendedLifetime(old) { #expect(!FileManager.default.fileExists(atPath: copy)) }
        }
        #expect(fileBytes(path) == before)
        let leftovers = ["", "-wal", "-shm"].filter { FileManager.default.fileExists(atPath: copy + $0) }
        #expect(leftovers.isEmpty, "the migrated copy, its -wal and -shm are deleted with the log")

        let migrated = try EventLog(path: path)
        #expect(try migrated.schemaVersion() == EventLog.latestSchemaVersion)
        let identity = try #require(try migrated.identity())
        #expect(try EventLog(path: path, mode: .readOnly).identity() == identity, "migrating gave the file its identity for good")
        try expectReadsAsRecorded(migrated)
        #expect(try migrated.checkIntegrity().isSound)
        let versions = try DatabaseQueue(path: path).read { db in try Int.fetchAll(db, sql: "SELECT version FROM schema_migrations ORDER BY version") }
        #expect(versions == Array(1...EventLog.latestSchemaVersion))
    }
}
